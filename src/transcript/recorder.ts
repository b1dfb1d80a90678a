import type { Message, UserMessage } from "../model/types.js";
import type { ToolDisplay } from "../tools/types.js";
import type { Logger } from "../util/logger.js";
import type { PromptBlock } from "../tools/types.js";
import type { AgentEvent } from "../agent/events.js";
import type { SessionStore } from "./store/index.js";
import type { SessionRecord, ToolCallRecord } from "./restore.js";

/** Streamed text is written in pieces at most this old, so a crash loses at most this much. */
const TEXT_FLUSH_MS = 150;
/**
 * ...or this long. Each piece is one synchronous append (open, write, close), so a whole answer
 * arriving at once (a burst of 140 KB) costs a few appends, not one per 4 KB.
 */
const TEXT_FLUSH_CHARS = 64 * 1024;

/**
 * Turns a session's events into transcript records as they happen. Text deltas are coalesced
 * (a record per ~150 ms, not per token); everything else is written immediately, in order.
 */
export function createRecorder(store: SessionStore, sessionId: string, logger: Logger) {
  let buffered: { t: "text" | "thought"; mid: string; text: string; sub?: string } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const pendingCalls = new Map<string, PendingCall>();

  const append = (record: SessionRecord) => {
    store
      .append(sessionId, record as unknown as Record<string, unknown>)
      .catch((error) => logger.warn(`session ${sessionId}: cannot save`, error));
  };
  const flushText = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffered) append(buffered);
    buffered = undefined;
  };
  const write = (record: SessionRecord) => {
    flushText();
    append(record);
  };
  const bufferText = (t: "text" | "thought", mid: string, text: string, sub: string | undefined) => {
    if (
      buffered &&
      (buffered.t !== t || buffered.mid !== mid || buffered.sub !== sub || buffered.text.length >= TEXT_FLUSH_CHARS)
    )
      flushText();
    if (buffered) buffered.text += text;
    else {
      buffered = { t, mid, text, ...(sub ? { sub } : {}) };
      timer = setTimeout(flushText, TEXT_FLUSH_MS);
      timer.unref?.();
    }
  };
  const writeCall = (call: PendingCall) => {
    if (call.written) return;
    call.written = true;
    const { written: _written, sub, ...record } = call;
    write({ t: "tool", call: record, ...(sub ? { sub } : {}) });
  };
  /** A call is written once it runs (with what its updates changed before), and its result when it ends. */
  const recordToolUpdate = (event: EventOf<"tool_call_update">, sub: string | undefined) => {
    const call = pendingCalls.get(event.toolCallId);
    if (call && !call.written) {
      if (event.title !== undefined) call.title = event.title;
      if (event.locations) call.locations = event.locations;
      if (event.rawInput !== undefined) call.rawInput = event.rawInput;
    }
    if (event.status === "in_progress" && call) writeCall(call);
    if (event.status === "completed" || event.status === "failed") {
      if (call) writeCall(call);
      pendingCalls.delete(event.toolCallId);
      write(toolDoneRecord(event, event.status, sub));
    }
  };

  /** `sub`: the subagent's child session the event belongs to. */
  const recordEvent = (event: AgentEvent, sub?: string): void => {
    const tag = sub ? { sub } : {};
    switch (event.type) {
      case "message_chunk":
        return bufferText("text", event.messageId, event.text, sub);
      case "thought_chunk":
        return bufferText("thought", event.messageId, event.text, sub);
      case "tool_call":
        // Written when it starts running: its title, locations and input may still change until then.
        pendingCalls.set(event.toolCallId, pendingCall(event, sub));
        return;
      case "tool_call_update":
        return recordToolUpdate(event, sub);
      case "plan":
        return write({ t: "plan", entries: event.entries, ...tag });
      case "plan_document":
        return write({
          t: "plan_doc",
          id: event.planId,
          content: event.content,
          ...(event.path ? { path: event.path } : {}),
        });
      case "usage":
        return write(usageRecord(event, sub));
      case "subagent_started":
        return write({
          t: "subagent",
          id: event.sessionId,
          toolCallId: event.toolCallId,
          title: event.title,
          description: event.description,
          prompt: event.prompt,
        });
      case "subagent_event":
        return recordEvent(event.event, event.sessionId);
      case "subagent_ended":
        return write({
          t: "subagent_end",
          id: event.sessionId,
          stopReason: event.stopReason,
          ...(event.error ? { error: event.error } : {}),
        });
      default:
        return;
    }
  };

  return {
    user(id: string, blocks: PromptBlock[], message: UserMessage) {
      write({ t: "user", id, blocks, message });
    },
    message(message: Message, mid?: string) {
      write({ t: "msg", message, ...(mid ? { mid } : {}) });
    },
    record(record: SessionRecord) {
      write(record);
    },
    event(event: AgentEvent) {
      recordEvent(event);
    },
    async flush(): Promise<void> {
      flushText();
      await store.flush(sessionId);
    },
  };
}

export type Recorder = ReturnType<typeof createRecorder>;

type EventOf<T extends AgentEvent["type"]> = Extract<AgentEvent, { type: T }>;
type PendingCall = ToolCallRecord & { written: boolean; sub?: string };

function pendingCall(event: EventOf<"tool_call">, sub: string | undefined): PendingCall {
  return {
    id: event.toolCallId,
    name: event.name,
    title: event.title,
    kind: event.kind,
    locations: event.locations,
    rawInput: event.rawInput,
    ...(event.parentToolCallId ? { parentToolCallId: event.parentToolCallId } : {}),
    ...(sub ? { sub } : {}),
    written: false,
  };
}

function toolDoneRecord(
  event: EventOf<"tool_call_update">,
  status: "completed" | "failed",
  sub: string | undefined,
): SessionRecord {
  return {
    t: "tool_done",
    id: event.toolCallId,
    status,
    content: storable(event.transcript ?? event.content ?? []),
    ...(event.locations ? { locations: event.locations } : {}),
    ...(event.rawOutput !== undefined ? { rawOutput: event.rawOutput } : {}),
    ...(event.parentToolCallId ? { parentToolCallId: event.parentToolCallId } : {}),
    ...(sub ? { sub } : {}),
  };
}

/** `in` counts every input token the request was billed for, cached or not. */
function usageRecord(event: EventOf<"usage">, sub: string | undefined): SessionRecord {
  return {
    t: "usage",
    used: event.used,
    size: event.size,
    in: event.usage.inputTokens + (event.usage.cacheReadTokens ?? 0) + (event.usage.cacheWriteTokens ?? 0),
    out: event.usage.outputTokens,
    ...(event.costUsd !== undefined ? { cost: event.costUsd } : {}),
    ...(sub ? { sub } : {}),
  };
}

/** Terminal ids mean nothing after a restart; keep only content that can be shown again. */
function storable(display: readonly ToolDisplay[]): ToolDisplay[] {
  return display.filter((d) => d.type !== "terminal");
}
