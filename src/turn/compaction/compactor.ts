import { randomUUID } from "node:crypto";
import type { BackendProtocol } from "../../backends/protocol.js";
import type { Message, ModelClient } from "../../model/types.js";
import { errorMessage } from "../../util/errors.js";
import {
  contextTrigger,
  estimateTokens,
  isSummaryMessage,
  selectCutoff,
  summaryMessage,
  truncateToolCallArgs,
} from "./messages.js";
import { summarizeMessages } from "./summarizer.js";
import { formatTranscript } from "./markdown.js";
import type { AgentEventSink } from "../../agent/events.js";

// Conversation compaction (reference/system-inventory.md §12): when the conversation nears the
// model's context window, the older messages are summarized by the model, written in full to
// /conversation_history/<session>.md, and replaced by one summary message; the recent messages stay
// verbatim. Runs automatically before a model request (`prepareMessages`) or on demand (`/compact`).

export {
  contextTrigger,
  estimateTokens,
  isSummaryMessage,
  selectCutoff,
  summaryMessage,
  truncateToolCallArgs,
  DEFAULT_TRIGGER_TOKENS,
  IMAGE_TOKENS,
  type ArgTruncation,
} from "./messages.js";
export { formatTranscript, type TranscriptOptions } from "./markdown.js";
export { SUMMARY_SYSTEM_PROMPT } from "./summarizer.js";

export type CompactionTrigger = "auto" | "manual";

/** The PreCompact seam: a hook may refuse a compaction. Must not throw (hooks fail open). */
export type PreCompactCheck = (
  trigger: CompactionTrigger,
  signal: AbortSignal,
  customInstructions?: string,
) => Promise<{ blocked: boolean; reason?: string }>;

export type CompactionResult =
  /** `messages` = [summary message, ...kept messages]; the caller adopts it as the conversation. */
  | { kind: "compacted"; messages: Message[]; summary: string; historyPath: string; summarizedCount: number }
  /** Nothing to do (too few messages); `reason` is a sentence for the user. */
  | { kind: "skipped"; reason: string }
  | { kind: "blocked"; reason: string }
  | { kind: "failed"; error: string }
  /** The signal aborted; nothing was changed and nothing more is emitted. */
  | { kind: "cancelled" };

export type CompactorOptions = {
  model: ModelClient;
  /** Receives the history file (the session's composite backend, so `/conversation_history/` is routed). */
  backend: BackendProtocol;
  /** Names the history file. */
  sessionId: string;
  /** Fraction of the context window that triggers compaction. Default 0.85 (170,000 tokens when the window is unknown). */
  triggerFraction?: number;
  /** Recent messages kept verbatim. Default 6. */
  keepMessages?: number;
  /** Default "/conversation_history/". */
  historyPrefix?: string;
  /** Receives `compaction` events (and a notice when a hook blocks an automatic compaction). */
  emit: AgentEventSink;
  /** Default: never blocks. */
  preCompact?: PreCompactCheck;
  /** Tokens every request carries besides the messages (system prompt, tool schemas). Default 0. */
  baseTokens?: () => number;
  /** Input tokens of one summarizer request; larger transcripts are summarized in chunks. Default 60% of the context window (200,000 when unknown). */
  summaryInputTokens?: number;
  /** Characters kept of each text, tool input or tool result in the summarizer's transcript. Default 4,000. */
  summaryPartChars?: number;
  /** Default () => new Date(). */
  now?: () => Date;
  /** Compaction ids. Default randomUUID. */
  newId?: () => string;
};

export type CompactOptions = {
  /** Extra guidance for the summary (`/compact <instructions>`); also passed to PreCompact hooks. */
  instructions?: string;
};

export interface Compactor {
  /** Where the summarized messages are appended. */
  readonly historyPath: string;
  needsCompaction(messages: readonly Message[]): boolean;
  compact(
    messages: readonly Message[],
    trigger: CompactionTrigger,
    signal: AbortSignal,
    options?: CompactOptions,
  ): Promise<CompactionResult>;
  /**
   * `TurnOptions.prepareMessages`: returns `messages` itself when nothing changes, otherwise a new
   * list the caller should adopt as the conversation. A failed compaction returns `messages` (the
   * failed event tells the user) and is not retried until a few more messages have arrived.
   */
  prepareMessages(messages: Message[], signal: AbortSignal): Promise<Message[]>;
}

const DEFAULT_WINDOW = 200_000;
/** After a failed or blocked automatic compaction, wait this many new messages before trying again. */
const AUTO_RETRY_GAP = 4;

export function createCompactor(options: CompactorOptions): Compactor {
  const { model, backend, emit } = options;
  const keepMessages = options.keepMessages ?? 6;
  const now = options.now ?? (() => new Date());
  const newId = options.newId ?? (() => randomUUID());
  const prefix = (options.historyPrefix ?? "/conversation_history/").replace(/\/*$/, "/");
  const historyPath = `${prefix}${options.sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}.md`;
  const window = model.contextWindow > 0 ? model.contextWindow : DEFAULT_WINDOW;
  const summaryInputTokens = options.summaryInputTokens ?? Math.floor(window * 0.6);

  // The last compaction, so a caller that kept the full list (the loop within a turn, a history that
  // was not replaced) gets the same compacted view instead of a second summary of the same messages.
  let last: { replaced: readonly Message[]; summary: Message } | undefined;
  let autoRetryAt = 0;

  const needsCompaction = (messages: readonly Message[]) =>
    estimateTokens(messages) + (options.baseTokens?.() ?? 0) >=
    contextTrigger(model.contextWindow, options.triggerFraction ?? 0.85);

  async function appendHistory(messages: readonly Message[]): Promise<string | undefined> {
    try {
      const existing = await backend.readRaw(historyPath);
      if (existing.error && !/not found/i.test(existing.error)) return existing.error;
      const content = existing.data?.content;
      const before =
        content === undefined ? "" : typeof content === "string" ? content : Buffer.from(content).toString("utf8");
      const section = `## Summarized at ${now().toISOString()}\n\n${formatTranscript(messages)}\n\n`;
      const written = await backend.write(historyPath, before + section);
      return written.error;
    } catch (error) {
      return errorMessage(error);
    }
  }

  async function compact(
    messages: readonly Message[],
    trigger: CompactionTrigger,
    signal: AbortSignal,
    compactOptions: CompactOptions = {},
  ): Promise<CompactionResult> {
    const cut = selectCutoff(messages, keepMessages);
    if (cut === undefined)
      return {
        kind: "skipped",
        reason: `Nothing to compact yet: the conversation has ${messages.length} message${messages.length === 1 ? "" : "s"} and the last ${keepMessages} are always kept.`,
      };
    if (signal.aborted) return { kind: "cancelled" };
    const check = await options.preCompact?.(trigger, signal, compactOptions.instructions);
    if (signal.aborted) return { kind: "cancelled" };
    if (check?.blocked) return { kind: "blocked", reason: check.reason ?? "a PreCompact hook blocked the compaction" };

    const compactionId = newId();
    const send: AgentEventSink = (event) => {
      if (!signal.aborted) emit(event);
    };
    const fail = (error: string): CompactionResult => {
      send({ type: "compaction", compactionId, status: "failed", error });
      return { kind: "failed", error };
    };
    send({ type: "compaction", compactionId, status: "in_progress" });

    const older = truncateToolCallArgs(messages.slice(0, cut));
    const outcome = await summarizeMessages({
      model,
      messages: older,
      signal,
      instructions: compactOptions.instructions,
      inputBudgetTokens: summaryInputTokens,
      partChars: options.summaryPartChars ?? 4000,
    });
    if (outcome.kind === "cancelled" || signal.aborted) return { kind: "cancelled" };
    if (outcome.kind === "failed") return fail(`The summary request failed: ${outcome.error}`);

    // Earlier summaries are left out: the messages they stand for are already in the file.
    const historyError = await appendHistory(older.filter((m) => !isSummaryMessage(m)));
    if (signal.aborted) return { kind: "cancelled" };
    if (historyError !== undefined)
      return fail(`Could not save the conversation history to ${historyPath}: ${historyError}`);

    const summary = summaryMessage(outcome.summary, historyPath);
    last = { replaced: messages.slice(0, cut), summary };
    autoRetryAt = 0;
    send({ type: "compaction", compactionId, status: "completed", summary: outcome.summary });
    return {
      kind: "compacted",
      messages: [summary, ...messages.slice(cut)],
      summary: outcome.summary,
      historyPath,
      summarizedCount: cut,
    };
  }

  /** The conversation as last compacted, when `messages` still starts with the replaced messages. */
  function reuseLast(messages: Message[]): Message[] {
    if (!last || messages.length < last.replaced.length) return messages;
    for (let i = 0; i < last.replaced.length; i++) if (messages[i] !== last.replaced[i]) return messages;
    return [last.summary, ...messages.slice(last.replaced.length)];
  }

  async function prepareMessages(messages: Message[], signal: AbortSignal): Promise<Message[]> {
    const current = reuseLast(messages);
    if (!needsCompaction(current) || current.length < autoRetryAt) return current;
    const result = await compact(current, "auto", signal);
    switch (result.kind) {
      case "compacted":
        return result.messages;
      case "blocked":
        if (!signal.aborted)
          emit({ type: "notice", severity: "info", title: `Automatic compaction was blocked: ${result.reason}` });
        autoRetryAt = current.length + AUTO_RETRY_GAP;
        return current;
      case "failed":
        autoRetryAt = current.length + AUTO_RETRY_GAP;
        return current;
      case "skipped":
      case "cancelled":
        return current;
    }
  }

  return { historyPath, needsCompaction, compact, prepareMessages };
}
