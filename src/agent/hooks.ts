import type { ToolResult } from "../tools/types.js";
import type { GateHooks, HookedToolCall } from "../gate/call/hooks.js";

export type PostToolOutcome = { context?: string[]; systemMessages?: string[] };
/** `continueWith`: send it as a user message and call the model again; `warning`: why it did not. */
export type StopOutcome = { continueWith?: string; systemMessages?: string[]; warning?: string };

/**
 * Lifecycle seams of a turn: the gate's (before a call runs, see gate/call/hooks.ts) and these. The
 * session adapts the hooks engine (hooks/) to this interface; every method is optional and must not
 * throw (hook failures are diagnostics, and hooks fail open).
 */
export interface AgentHooks extends GateHooks {
  postToolUse?(
    call: HookedToolCall,
    result: ToolResult,
    failed: boolean,
    signal: AbortSignal,
  ): Promise<PostToolOutcome>;
  /** The model stopped; may continue the turn. The implementation owns the continuation cap. */
  stop?(info: { lastAssistantText: string }, signal: AbortSignal): Promise<StopOutcome>;
}

export const NO_HOOKS: AgentHooks = {};
