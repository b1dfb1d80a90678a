import { describe, expect, it } from "vitest";
import { parseSse, type SseEvent } from "../../../src/model/wire/sse.js";

function streamOf(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
      controller.close();
    },
  });
}

async function parse(chunks: Array<string | Uint8Array>): Promise<SseEvent[]> {
  const out: SseEvent[] = [];
  for await (const event of parseSse(streamOf(chunks))) out.push(event);
  return out;
}

describe("parseSse", () => {
  it("reads event names and data, defaulting the name to message", async () => {
    const events = await parse(['event: ping\ndata: {"a":1}\n\ndata: plain\n\n']);
    expect(events).toEqual([
      { event: "ping", data: '{"a":1}' },
      { event: "message", data: "plain" },
    ]);
  });

  it("joins multi-line data with newlines and strips only one leading space", async () => {
    const events = await parse(["data: one\ndata:two\ndata:  three\n\n"]);
    expect(events).toEqual([{ event: "message", data: "one\ntwo\n three" }]);
  });

  it("accepts CRLF and lone CR line endings, including a CRLF split across chunks", async () => {
    const events = await parse(["event: a\r\ndata: x\r", "\n\r", "\ndata: y\rdata: z\r\r"]);
    expect(events).toEqual([
      { event: "a", data: "x" },
      { event: "message", data: "y\nz" },
    ]);
  });

  it("handles chunks split at every byte, including inside a UTF-8 character", async () => {
    const bytes = new TextEncoder().encode("event: t\ndata: héllo ✓ 🙂\n\n");
    const events = await parse(Array.from(bytes, (b) => new Uint8Array([b])));
    expect(events).toEqual([{ event: "t", data: "héllo ✓ 🙂" }]);
  });

  it("ignores comments, unknown fields and blank lines without data", async () => {
    const events = await parse([": keep-alive\n\nretry: 100\nfoo: bar\nevent: x\n\n", "data\n\n"]);
    expect(events).toEqual([{ event: "message", data: "" }]);
  });

  it("reads lines without a colon next to lines with one, in one chunk and split", async () => {
    const text = "data\nevent: x\ndata: y\nid\n\ndata:z:z\n\n";
    const expected = [
      { event: "x", data: "\ny", id: "" },
      { event: "message", data: "z:z", id: "" },
    ];
    expect(await parse([text])).toEqual(expected);
    expect(await parse([text.slice(0, 7), text.slice(7, 19), text.slice(19)])).toEqual(expected);
  });

  it("tracks the last id", async () => {
    const events = await parse(["id: 7\ndata: a\n\ndata: b\n\n"]);
    expect(events).toEqual([
      { event: "message", data: "a", id: "7" },
      { event: "message", data: "b", id: "7" },
    ]);
  });

  it("discards an event the stream ends before terminating", async () => {
    const events = await parse(["data: complete\n\ndata: cut off"]);
    expect(events).toEqual([{ event: "message", data: "complete" }]);
  });

  it("cancels the body when the consumer stops early", async () => {
    let cancelled = false;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        controller.enqueue(new TextEncoder().encode("data: tick\n\n"));
      },
      cancel() {
        cancelled = true;
      },
    });
    for await (const event of parseSse(body)) {
      expect(event.data).toBe("tick");
      break;
    }
    expect(cancelled).toBe(true);
  });

  it("parses a large line delivered in many small pieces", async () => {
    const big = "x".repeat(200_000);
    const text = `data: ${big}\n\n`;
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += 1000) pieces.push(text.slice(i, i + 1000));
    const events = await parse(pieces);
    expect(events).toHaveLength(1);
    expect(events[0]!.data.length).toBe(200_000);
  });
});
