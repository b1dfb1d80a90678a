import type { Message, ModelClient, ModelEvent, ModelRequest, ModelToolSpec } from "../../../src/model/types.js";

export async function collect(iterable: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

export function request(messages: Message[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { system: "You are a test.", messages, tools: [], signal: new AbortController().signal, ...extra };
}

export function userText(text: string): Message {
  return { role: "user", content: [{ type: "text", text }] };
}

export const readFileTool: ModelToolSpec = {
  name: "read_file",
  description: "Read a file",
  inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"] },
};

export function lastEvent(events: ModelEvent[]): ModelEvent {
  const last = events[events.length - 1];
  if (!last) throw new Error("no events");
  return last;
}

export function done(events: ModelEvent[]): Extract<ModelEvent, { type: "done" }> {
  const last = lastEvent(events);
  if (last.type !== "done") throw new Error(`expected done, got ${JSON.stringify(last)}`);
  return last;
}

export function texts(events: ModelEvent[], type: "text_delta" | "thinking_delta" = "text_delta"): string[] {
  return events.flatMap((e) => (e.type === type ? [e.text] : []));
}

/** Retry options that never wait, recording the delays asked for. */
export function instantRetry(maxRetries = 4) {
  const delays: number[] = [];
  return {
    delays,
    options: { maxRetries, sleep: async (ms: number) => void delays.push(ms), random: () => 1 },
  };
}

/** A 1×1 transparent PNG. */
export const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

export type { ModelClient };
