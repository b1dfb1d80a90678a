import type * as acp from "@agentclientprotocol/sdk/unstable";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createUpdateStream } from "../../../src/acp/updates/update-stream.js";

// The editor must see every character the model streamed, in order, whatever the merging does.

const text = (
  messageId: string,
  t: string,
  kind: "agent_message_chunk" | "agent_thought_chunk" = "agent_message_chunk",
) => ({ sessionUpdate: kind, messageId, content: { type: "text", text: t } }) as acp.SessionUpdate;

function collecting(options: { coalesceMs?: number; maxChunkChars?: number } = {}) {
  const sent: acp.SessionUpdate[] = [];
  const stream = createUpdateStream({ ...options, send: async (update) => void sent.push(update) });
  return { sent, stream };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("the update stream", () => {
  it("merges consecutive chunks of one message and sends them before any other update", async () => {
    const { sent, stream } = collecting();
    for (const t of ["Hel", "lo, ", "world"]) stream.push(text("m1", t));
    stream.push(text("t1", "hmm", "agent_thought_chunk"));
    stream.push(text("m2", "next"));
    stream.push({ sessionUpdate: "plan", entries: [] });
    await stream.flush();
    expect(sent).toEqual([
      text("m1", "Hel"), // the first words go out at once
      text("m1", "lo, world"),
      text("t1", "hmm", "agent_thought_chunk"),
      text("m2", "next"),
      { sessionUpdate: "plan", entries: [] },
    ]);
  });

  it("sends the first text at once, then what came during the window when it ends, without a flush", async () => {
    vi.useFakeTimers();
    const { sent, stream } = collecting({ coalesceMs: 24 });
    stream.push(text("m1", "a"));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([text("m1", "a")]);
    stream.push(text("m1", "b"));
    stream.push(text("m1", "c"));
    await vi.advanceTimersByTimeAsync(23);
    expect(sent).toEqual([text("m1", "a")]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual([text("m1", "a"), text("m1", "bc")]);
    stream.push(text("m1", "d")); // the window goes on after a send: merged again
    await vi.advanceTimersByTimeAsync(24);
    expect(sent).toEqual([text("m1", "a"), text("m1", "bc"), text("m1", "d")]);
    await vi.advanceTimersByTimeAsync(24); // a quiet window closes it: the next text goes out at once
    stream.push(text("m1", "e"));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent.at(-1)).toEqual(text("m1", "e"));
  });

  it("starts a new update when merged text would pass the size limit", async () => {
    const { sent, stream } = collecting({ maxChunkChars: 4 });
    for (const t of ["a", "bc", "de", "fg"]) stream.push(text("m1", t));
    await stream.flush();
    expect(sent).toEqual([text("m1", "a"), text("m1", "bcde"), text("m1", "fg")]);
  });
});
