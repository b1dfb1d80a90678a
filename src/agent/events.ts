import type { PlanEntry, ToolDisplay, ToolKind, ToolLocation } from "../tools/types.js";
import type { Usage } from "../model/types.js";
import type { QuotaPool } from "../model/limits.js";

export type ToolCallStatus = "pending" | "in_progress" | "completed" | "failed";

/**
 * Everything a turn produces, in order. `acp/` translates these with pure functions; headless
 * mode prints them. Events of a subagent's own tool calls carry `parentToolCallId`.
 *
 * A subagent's run is a child session: `subagent_started` comes before any of its events, every
 * event of its own turn arrives wrapped in `subagent_event` (its text and thoughts too), and
 * `subagent_ended` closes it. Consumers that show no child sessions unwrap the tool events and drop
 * the rest, which is what a subagent looked like before child sessions.
 */
export type AgentEvent =
  | { type: "message_chunk"; messageId: string; text: string }
  | { type: "thought_chunk"; messageId: string; text: string }
  | {
      type: "tool_call";
      toolCallId: string;
      /** Model-facing tool name. */
      name: string;
      title: string;
      kind: ToolKind;
      status: ToolCallStatus;
      locations: ToolLocation[];
      rawInput: unknown;
      /** Set for shell commands that run locally: output arrives as `tool_output` events. */
      liveTerminal?: { terminalId: string; cwd: string };
      parentToolCallId?: string;
    }
  | {
      type: "tool_call_update";
      toolCallId: string;
      status?: ToolCallStatus;
      title?: string;
      content?: ToolDisplay[];
      locations?: ToolLocation[];
      rawInput?: unknown;
      rawOutput?: unknown;
      /**
       * What a transcript should keep instead of `content` (e.g. the command output as text when
       * `content` points at an editor terminal that will not exist after a restart).
       */
      transcript?: ToolDisplay[];
      /** Exit of a live terminal started with `liveTerminal`. */
      terminalExit?: { terminalId: string; exitCode: number | null; signal: string | null };
      /** From now on the call's output streams as `tool_output` (a background process). */
      liveTerminal?: { terminalId: string; cwd: string };
      /** Progress text for editors that do not show live terminals; others ignore it. */
      fallbackOnly?: boolean;
      parentToolCallId?: string;
    }
  | { type: "tool_output"; toolCallId: string; terminalId: string; data: string; parentToolCallId?: string }
  | { type: "plan"; entries: PlanEntry[] }
  /** The Markdown plan a `plan`-mode turn ended with (`path`: where it was saved). */
  | { type: "plan_document"; planId: string; content: string; path?: string }
  | {
      type: "usage";
      used: number;
      size: number;
      usage: Usage;
      /** This request's price in USD; absent when the model's prices are unknown. */
      costUsd?: number;
      /** The session's spend so far, set by the session; absent when any request's price was unknown. */
      sessionCostUsd?: number;
    }
  /** The provider's rate limits or quota, as its last answer (or refusal) reported them. */
  | { type: "quota"; pool: QuotaPool }
  /** Something the user should see that is not part of the answer (retries, hook messages, reload hints). */
  | { type: "notice"; severity: "info" | "warning" | "error"; title: string; description?: string }
  | {
      type: "compaction";
      compactionId: string;
      status: "in_progress" | "completed" | "failed";
      summary?: string;
      error?: string;
    }
  | {
      type: "subagent_started";
      /** The child session's id. */
      sessionId: string;
      /** The `task` call that runs it. */
      toolCallId: string;
      title: string;
      /** What the parent asked it to do, as the parent wrote it. */
      description: string;
      /** The message the subagent was given (the description with hook context and answer format). */
      prompt: string;
    }
  | { type: "subagent_event"; sessionId: string; event: AgentEvent }
  | { type: "subagent_ended"; sessionId: string; stopReason: TurnStopReason; error?: string };

/** The events of a subagent's own turn. */
export type AgentEventSink = (event: AgentEvent) => void;

export type TurnStopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

export type TurnResult = {
  stopReason: TurnStopReason;
  /** Set when the turn ended because the model provider failed (after retries). */
  error?: string;
};
