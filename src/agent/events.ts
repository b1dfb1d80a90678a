import type { PlanEntry, ToolDisplay, ToolKind, ToolLocation } from "../tools/types.js";
import type { Message, Usage, UserMessage } from "../model/types.js";
import type { PromptBlock } from "../tools/types.js";
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

export type AgentEventSink = (event: AgentEvent) => void;

/** A message the user wrote: the model's version, the blocks the editor showed, and its id. */
export type UserEntry = { message: UserMessage; messageId: string; blocks: readonly PromptBlock[] };

/**
 * What a turn reports to its session alone, on the same channel as its events: the conversation as
 * it grows (in order, also after a cancel, so the next turn sees every call answered), a conversation
 * compaction replaced, a moment Notification hooks hear of, and an event for the editor that the
 * transcript does not keep. The session's observer (session/turn-observer.ts) takes these; none
 * reaches the editor as such.
 */
export type TurnReport =
  /** A message joined the conversation; an assistant message with the id its streamed chunks carried. */
  | { type: "message"; message: Message; messageId?: string }
  /** The user's own message (the prompt, or one sent while the turn ran) joined the conversation. */
  | ({ type: "user_message" } & UserEntry)
  | { type: "history_replaced"; messages: Message[] }
  | { type: "notification"; kind: "permission_prompt" | "idle_prompt"; message: string }
  | { type: "editor_only"; event: AgentEvent };

/** Everything a turn sends up: its events and its reports, one channel, in order. */
export type TurnEvent = AgentEvent | TurnReport;
export type TurnEventSink = (event: TurnEvent) => void;

export type TurnStopReason = "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled";

export type TurnResult = {
  stopReason: TurnStopReason;
  /** Set when the turn ended because the model provider failed (after retries). */
  error?: string;
};

const TURN_REPORT_TYPES = {
  message: true,
  user_message: true,
  history_replaced: true,
  notification: true,
  editor_only: true,
} satisfies Record<TurnReport["type"], true>;

/** Whether `event` is for the session alone (a TurnReport) rather than an event the editor sees. */
export function isTurnReport(event: TurnEvent): event is TurnReport {
  return Object.hasOwn(TURN_REPORT_TYPES, event.type);
}
