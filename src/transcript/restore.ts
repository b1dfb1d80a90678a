import type { AgentEvent, TurnStopReason } from "../agent/events.js";
import type { Message, UserMessage } from "../model/types.js";
import type { PlanEntry, ToolDisplay, ToolKind, ToolLocation } from "../tools/types.js";
import type { PromptBlock } from "../tools/types.js";

// A session on disk is a list of these records, appended as things happen (transcript/store). The
// model's history and the editor's replay are both derived from them, so nothing is stored twice
// in two shapes that could disagree. A subagent's run is recorded in its parent's log: `subagent`
// opens it, its own records carry `sub` (its child session id), `subagent_end` closes it; none of
// them is part of the parent's history.

export type ToolCallRecord = {
  id: string;
  name: string;
  title: string;
  kind: ToolKind;
  locations: ToolLocation[];
  rawInput: unknown;
  parentToolCallId?: string;
};

export type SessionRecord =
  | { t: "user"; id: string; blocks: PromptBlock[]; message: UserMessage }
  | { t: "text"; mid: string; text: string; sub?: string }
  | { t: "thought"; mid: string; text: string; sub?: string }
  /** A message of the model's history (assistant replies, tool results, hook continuations). */
  | { t: "msg"; message: Message; mid?: string }
  | { t: "tool"; call: ToolCallRecord; sub?: string }
  | {
      t: "tool_done";
      id: string;
      status: "completed" | "failed";
      content: ToolDisplay[];
      locations?: ToolLocation[];
      rawOutput?: unknown;
      parentToolCallId?: string;
      sub?: string;
    }
  | { t: "plan"; entries: PlanEntry[]; sub?: string }
  | { t: "plan_doc"; id: string; content: string; path?: string }
  /** `cost` absent: the request's price was unknown (older records have no `in`/`out` either). */
  | { t: "usage"; used: number; size: number; in?: number; out?: number; cost?: number; sub?: string }
  | { t: "subagent"; id: string; toolCallId: string; title: string; description: string; prompt: string }
  | { t: "subagent_end"; id: string; stopReason: string; error?: string }
  | { t: "mode"; mode: string }
  | { t: "model"; model: string }
  | { t: "thought_level"; level: string }
  /** The model's history after a compaction (the replay keeps showing everything). */
  | { t: "compacted"; history: Message[]; summary: string }
  | { t: "turn_end"; stopReason: string };

/** What the editor is sent to show a loaded session again. */
export type ReplayItem =
  | { type: "user"; messageId: string; blocks: PromptBlock[] }
  | Extract<
      AgentEvent,
      {
        type:
          | "message_chunk"
          | "thought_chunk"
          | "tool_call"
          | "tool_call_update"
          | "plan"
          | "plan_document"
          | "usage"
          | "subagent_started"
          | "subagent_event"
          | "subagent_ended";
      }
    >;

export type RestoredSession = {
  history: Message[];
  replay: ReplayItem[];
  plan: PlanEntry[];
  mode?: string;
  model?: string;
  thoughtLevel?: string;
  /** What the session's model requests cost (see session/spend.ts). */
  spend?: { usd: number; unpriced: number; requests: number; inputTokens: number; outputTokens: number };
  usage?: { used: number; size: number };
  /** User message ids in order (for rewind and fork). */
  userMessageIds: string[];
};

const INTERRUPTED = "Interrupted: deep-acp stopped before this call finished.";

type ChildItem = Extract<
  ReplayItem,
  { type: "message_chunk" | "thought_chunk" | "tool_call" | "tool_call_update" | "plan" }
>;

/** A subagent's record shown in its child session, else the parent's own. */
const under = (sub: string | undefined, item: ChildItem): ReplayItem =>
  sub ? { type: "subagent_event", sessionId: sub, event: item } : item;

/** What folding the records gathers besides the result itself. */
type Fold = {
  restored: RestoredSession;
  history: Message[];
  replay: ReplayItem[];
  /** Tool calls that got their `tool_done`. */
  finished: Set<string>;
  /** The parent's streamed text by message id, and the ids whose full message was recorded. */
  textByMessage: Map<string, string>;
  recordedMessages: Set<string>;
  /** Child session of each subagent tool call; subagents that never ended. */
  childOf: Map<string, string>;
  openChildren: Set<string>;
};

/** Folds records into the model's history and the editor's replay, repairing an interrupted turn. */
export function restoreSession(records: readonly SessionRecord[]): RestoredSession {
  const history: Message[] = [];
  const replay: ReplayItem[] = [];
  const fold: Fold = {
    restored: { history, replay, plan: [], userMessageIds: [] },
    history,
    replay,
    finished: new Set(),
    textByMessage: new Map(),
    recordedMessages: new Set(),
    childOf: new Map(),
    openChildren: new Set(),
  };
  for (const record of records) foldRecord(fold, record);
  failUnfinished(fold);
  keepStreamedText(fold);
  const { restored } = fold;
  restored.history = repairToolResults(fold.history);
  if (restored.usage)
    replay.push({
      type: "usage",
      used: restored.usage.used,
      size: restored.usage.size,
      usage: { inputTokens: restored.usage.used, outputTokens: 0 },
    });
  return restored;
}

/** One record's part of the history, the replay and the session's settings. */
function foldRecord(fold: Fold, record: SessionRecord): void {
  const { restored, replay } = fold;
  switch (record.t) {
    case "user":
      fold.history.push(record.message);
      replay.push({ type: "user", messageId: record.id, blocks: record.blocks });
      restored.userMessageIds.push(record.id);
      break;
    case "text":
      if (!record.sub) fold.textByMessage.set(record.mid, (fold.textByMessage.get(record.mid) ?? "") + record.text);
      replay.push(under(record.sub, { type: "message_chunk", messageId: record.mid, text: record.text }));
      break;
    case "thought":
      replay.push(under(record.sub, { type: "thought_chunk", messageId: record.mid, text: record.text }));
      break;
    case "msg":
      if (record.mid) fold.recordedMessages.add(record.mid);
      fold.history.push(record.message);
      break;
    case "tool":
      if (record.sub) fold.childOf.set(record.call.id, record.sub);
      replay.push(under(record.sub, toolCallItem(record.call)));
      break;
    case "tool_done":
      fold.finished.add(record.id);
      replay.push(under(record.sub, toolDoneItem(record)));
      break;
    case "plan":
      if (!record.sub) restored.plan = record.entries;
      replay.push(under(record.sub, { type: "plan", entries: record.entries }));
      break;
    case "plan_doc":
      replay.push({
        type: "plan_document",
        planId: record.id,
        content: record.content,
        ...(record.path ? { path: record.path } : {}),
      });
      break;
    case "subagent":
      fold.openChildren.add(record.id);
      replay.push(subagentStartedItem(record));
      break;
    case "subagent_end":
      fold.openChildren.delete(record.id);
      replay.push({
        type: "subagent_ended",
        sessionId: record.id,
        stopReason: record.stopReason as TurnStopReason,
        ...(record.error ? { error: record.error } : {}),
      });
      break;
    case "usage":
      // A subagent's context is its own; its cost is the session's.
      if (!record.sub) restored.usage = { used: record.used, size: record.size };
      addSpend(restored, record);
      break;
    case "mode":
      restored.mode = record.mode;
      break;
    case "model":
      restored.model = record.model;
      break;
    case "thought_level":
      restored.thoughtLevel = record.level;
      break;
    case "compacted":
      fold.history = [...record.history];
      restored.history = fold.history;
      break;
    case "turn_end":
      break;
  }
}

/** A recorded call as the editor first saw it: pending. */
function toolCallItem(call: ToolCallRecord): ChildItem {
  return {
    type: "tool_call",
    toolCallId: call.id,
    name: call.name,
    title: call.title,
    kind: call.kind,
    status: "pending",
    locations: call.locations,
    rawInput: call.rawInput,
    parentToolCallId: call.parentToolCallId,
  };
}

function toolDoneItem(record: Extract<SessionRecord, { t: "tool_done" }>): ChildItem {
  return {
    type: "tool_call_update",
    toolCallId: record.id,
    status: record.status,
    content: record.content,
    ...(record.locations ? { locations: record.locations } : {}),
    ...(record.rawOutput !== undefined ? { rawOutput: record.rawOutput } : {}),
    parentToolCallId: record.parentToolCallId,
  };
}

function subagentStartedItem(record: Extract<SessionRecord, { t: "subagent" }>): ReplayItem {
  return {
    type: "subagent_started",
    sessionId: record.id,
    toolCallId: record.toolCallId,
    title: record.title,
    description: record.description,
    prompt: record.prompt,
  };
}

/** Adds one model request to the session's spend (records from before prices were kept have no `in`). */
function addSpend(restored: RestoredSession, record: Extract<SessionRecord, { t: "usage" }>): void {
  if (record.in === undefined) return;
  const spend = (restored.spend ??= { usd: 0, unpriced: 0, requests: 0, inputTokens: 0, outputTokens: 0 });
  spend.requests++;
  spend.inputTokens += record.in;
  spend.outputTokens += record.out ?? 0;
  if (record.cost === undefined) spend.unpriced++;
  else spend.usd += record.cost;
}

/** Calls the process never finished show as failed, not forever running; so do their subagents. */
function failUnfinished({ replay, finished, childOf, openChildren }: Fold): void {
  for (const entry of [...replay]) {
    const item = entry.type === "subagent_event" ? entry.event : entry;
    if (item.type === "tool_call" && !finished.has(item.toolCallId)) {
      const sub = childOf.get(item.toolCallId);
      replay.push(
        under(sub, {
          type: "tool_call_update",
          toolCallId: item.toolCallId,
          status: "failed",
          content: [{ type: "text", text: INTERRUPTED }],
          parentToolCallId: item.parentToolCallId,
        }),
      );
    }
  }
  for (const sessionId of openChildren)
    replay.push({ type: "subagent_ended", sessionId, stopReason: "cancelled", error: INTERRUPTED });
}

/** Text streamed before a crash is part of the conversation even though its message never completed. */
function keepStreamedText({ history, textByMessage, recordedMessages }: Fold): void {
  for (const [mid, text] of textByMessage) {
    if (!recordedMessages.has(mid) && text.trim() !== "")
      history.push({ role: "assistant", content: [{ type: "text", text }] });
  }
}

/** Every tool call in the history gets a result, right after its assistant message, so the next request is valid. */
export function repairToolResults(history: readonly Message[]): Message[] {
  const results = new Map<string, Message>();
  for (const m of history) if (m.role === "tool") results.set(m.toolCallId, m);
  const out: Message[] = [];
  for (const m of history) {
    if (m.role === "tool") continue;
    out.push(m);
    if (m.role !== "assistant") continue;
    for (const part of m.content) {
      if (part.type !== "tool_call") continue;
      out.push(
        results.get(part.id) ?? {
          role: "tool",
          toolCallId: part.id,
          toolName: part.name,
          content: [{ type: "text", text: INTERRUPTED }],
          isError: true,
        },
      );
    }
  }
  return out;
}
