import type { AnyTool, ToolResult } from "../tools/types.js";

export type HookedToolCall = { toolCallId: string; tool: AnyTool; input: unknown };

export type PreToolOutcome = {
  /** deny fails the call; ask forces the dialog; allow skips our own dialog (never a deny rule). */
  decision?: "allow" | "deny" | "ask";
  reason?: string;
  context?: string[];
  systemMessages?: string[];
};

export type PermissionHookOutcome = { decision?: "allow" | "deny"; message?: string; systemMessages?: string[] };
export type PostToolOutcome = { context?: string[]; systemMessages?: string[] };
/** `continueWith`: send it as a user message and call the model again; `warning`: why it did not. */
export type StopOutcome = { continueWith?: string; systemMessages?: string[]; warning?: string };

/**
 * Lifecycle seams of a turn. The session adapts the hooks engine (hooks/) to this interface; every
 * method is optional and must not throw (hook failures are diagnostics, and hooks fail open).
 */
export interface AgentHooks {
  preToolUse?(call: HookedToolCall, signal: AbortSignal): Promise<PreToolOutcome>;
  /** Runs when a permission dialog is about to be shown; may answer it. */
  permissionRequest?(call: HookedToolCall, signal: AbortSignal): Promise<PermissionHookOutcome>;
  postToolUse?(
    call: HookedToolCall,
    result: ToolResult,
    failed: boolean,
    signal: AbortSignal,
  ): Promise<PostToolOutcome>;
  /** The model stopped; may continue the turn. The implementation owns the continuation cap. */
  stop?(info: { lastAssistantText: string }, signal: AbortSignal): Promise<StopOutcome>;
  /** Notification hooks; fire and forget. */
  notify?(type: "permission_prompt" | "idle_prompt", message: string): void;
}

export const NO_HOOKS: AgentHooks = {};
