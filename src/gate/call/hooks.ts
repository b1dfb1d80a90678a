import type { AnyTool } from "../../tools/types.js";

// The hooks the gate's procedure runs for one call (PreToolUse, PermissionRequest, the
// permission_prompt notification). The session adapts the hooks engine to these; the agent's
// AgentHooks adds the ones that run around the call (PostToolUse, Stop).

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
  /** Notification hooks; fire and forget. */
  notify?(type: "permission_prompt" | "idle_prompt", message: string): void;
}
