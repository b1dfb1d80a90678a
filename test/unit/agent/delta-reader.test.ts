import { describe, expect, it } from "vitest";
import { createDeltaReader, mergeDeltas } from "../../../src/agent/delta-reader.js";
import { flattenBatches } from "../../../src/model/wire/flatten.js";
import type { ModelEvent } from "../../../src/model/types.js";

const text = (t: string): ModelEvent => ({ type: "text_delta", text: t });
const thought = (t: string): ModelEvent => ({ type: "thinking_delta", text: t });
const usage: ModelEvent = { type: "usage", usage: { inputTokens: 1, outputTokens: 2 } };

async function* batches(list: ModelEvent[][], onReturn?: () => void): AsyncGenerator<ModelEvent[]> {
  try {
    for (const batch of list) yield batch;
  } finally {
    onReturn?.();
  }
}

async function readAll(reader: ReturnType<typeof createDeltaReader>): Promise<ModelEvent[][]> {
  const reads: ModelEvent[][] = [];
  for (let events = await reader.next(); events; events = await reader.next()) reads.push(events);
  return reads;
}

describe("delta reader", () => {
  it("merges each read's consecutive deltas, keeping the text and the order of everything else", async () => {
    const reader = createDeltaReader(
      flattenBatches(
        batches([
          [thought("Let "), thought("me think."), text("Hello"), text(", "), text("world"), usage, text("!")],
          [text(" Again.")],
        ]),
      ),
    );
    expect(await readAll(reader)).toEqual([
      [thought("Let me think."), text("Hello, world"), usage, text("!")],
      [text(" Again.")],
    ]);
  });

  it("reads a stream that cannot hand over its buffer an event at a time", async () => {
    async function* plain(): AsyncGenerator<ModelEvent> {
      yield text("a");
      yield text("b");
    }
    expect(await readAll(createDeltaReader(plain()))).toEqual([[text("a")], [text("b")]]);
  });

  it("stops a stream left early, and only then", async () => {
    let returned = 0;
    const early = createDeltaReader(flattenBatches(batches([[text("a")], [text("b")]], () => returned++)));
    expect(await early.next()).toEqual([text("a")]);
    await early.close();
    expect(returned).toBe(1);
    const whole = createDeltaReader(flattenBatches(batches([[text("a")]], () => returned++)));
    await readAll(whole);
    await whole.close();
    expect(returned).toBe(2);
  });

  it("leaves lists without runs as they are", () => {
    expect(mergeDeltas([text("a"), usage, thought("b"), text("c")])).toEqual([
      text("a"),
      usage,
      thought("b"),
      text("c"),
    ]);
  });
});
