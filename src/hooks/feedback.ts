import type { HookDiagnostic, ReducedHookResult } from "./types.js";

// Small helpers for applying reduced results in the agent loop, so every caller words things alike.

/** Hard cap on Stop-hook continuations in a row (system-inventory §8); after it the turn ends regardless. */
export const MAX_STOP_CONTINUATIONS = 8;

/**
 * Text for the model from a feedback-style result (PostToolUse*, SubagentStop, Stop): block reasons
 * first, then additional context. Undefined when there is none.
 */
export function hookFeedbackText(result: ReducedHookResult): string | undefined {
  const parts = [...(result.blocked && result.reason ? [result.reason] : []), ...result.additionalContext];
  return parts.length > 0 ? parts.join("\n\n") : undefined;
}

export type StopDecision =
  { action: "stop"; stopReason?: string; diagnostic?: HookDiagnostic } | { action: "continue"; message: string };

/**
 * Tracks Stop-hook continuations for one turn. Use `active` as the payload's `stop_hook_active`,
 * then `decide(result)`: "continue" means send `message` as a user message and call the model again.
 */
export interface StopHookGate {
  readonly active: boolean;
  readonly count: number;
  decide(result: ReducedHookResult): StopDecision;
  reset(): void;
}

export function createStopHookGate(max = MAX_STOP_CONTINUATIONS): StopHookGate {
  let count = 0;
  return {
    get active() {
      return count > 0;
    },
    get count() {
      return count;
    },
    decide(result) {
      const stopReason = result.stopReason !== undefined ? { stopReason: result.stopReason } : {};
      const wants = result.blocked || result.additionalContext.length > 0;
      if (result.cancelled || !result.continue || !wants) {
        count = 0;
        return { action: "stop", ...stopReason };
      }
      if (count >= max) {
        count = 0;
        return {
          action: "stop",
          ...stopReason,
          diagnostic: {
            severity: "warning",
            source: "Stop",
            code: "continuation_cap",
            event: "Stop",
            message: `Stop hooks asked to continue ${max} times in a row; the turn ends here`,
          },
        };
      }
      count += 1;
      return { action: "continue", message: hookFeedbackText(result) ?? result.stopReason ?? "Continue working." };
    },
    reset() {
      count = 0;
    },
  };
}
