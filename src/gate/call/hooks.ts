import type { AnyTool } from "../../tools/types.js";

// The hooks the gate's procedure asks for one call (PreToolUse, PermissionRequest). The session
// adapts the hooks engine to these; the agent's AgentHooks adds the ones that run around the call
// (PostToolUse, Stop). Notification hooks answer nothing: the gate reports a dialog (GateReports.asking)
// and the session's observer runs them.

export type HookedToolCall = { toolCallId: string; tool: AnyTool; input: unknown };

export type PreToolOutcome = {
  /** deny fails the call; ask forces the dialog; allow skips our own dialog (never a deny rule). */
  decision?: "allow" | "deny" | "ask";
  reason?: string;
  context?: string[];
  systemMessages?: string[];
};

export type PermissionHookOutcome = { decision?: "allow" | "deny"; message?: string; systemMessages?: string[] };

/** Every method is optional and must not throw (hook failures are diagnostics, and hooks fail open). */
export interface GateHooks {
  preToolUse?(call: HookedToolCall, signal: AbortSignal): Promise<PreToolOutcome>;
  /** Runs when a permission dialog is about to be shown; may answer it. */
  permissionRequest?(call: HookedToolCall, signal: AbortSignal): Promise<PermissionHookOutcome>;
}
