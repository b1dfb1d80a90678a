import { describe, expect, it } from "vitest";
import { classifyLine } from "../../../src/acp/inbound.js";
import { scanJsonLine } from "../../../src/acp/json-scan.js";
import { createLineSplitter } from "../../../src/acp/line-splitter.js";
import { encodeMessage } from "../../../src/acp/outbound.js";

const limits = { maxMessageBytes: 4096, maxDepth: 16 };
const line = (text: string) => ({ kind: "line" as const, bytes: Buffer.from(text) });
const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

describe("scanJsonLine", () => {
  it("measures depth outside strings only and reads the top-level id", () => {
    const shape = scanJsonLine(Buffer.from(`{"a":"[[[[\\"[[[","b":{"c":[1]},"id":"x\\"y","method":"m"}`), 100);
    expect(shape).toEqual({ depth: 3, id: 'x"y', hasMethod: true, hasOutcome: false });
  });
  it("ignores nested ids and reports an unusable top-level id as null", () => {
    expect(scanJsonLine(Buffer.from(`{"params":{"id":5},"id":${deep(50)},"method":"m"}`), 10)).toMatchObject({
      id: null,
      hasMethod: true,
    });
    expect(scanJsonLine(Buffer.from(`{"params":{"id":5},"method":"m"}`), 10).id).toBeUndefined();
    expect(scanJsonLine(Buffer.from(`{"id": 42 ,"result":{}}`), 10)).toMatchObject({ id: 42, hasOutcome: true });
  });
  it("stops counting past the limit and still finds an id written after the deep part", () => {
    const shape = scanJsonLine(Buffer.from(`{"params":${deep(5000)},"id":7,"method":"m"}`), 100);
    expect(shape.depth).toBe(101);
    expect(shape.id).toBe(7);
  });
});

describe("createLineSplitter", () => {
  it("splits across chunks, strips CR and keeps only the head of an over-limit line", () => {
    const splitter = createLineSplitter(10);
    expect(splitter.push(Buffer.from('{"a"'))).toEqual([]);
    expect(splitter.push(Buffer.from(':1}\r\n{"b":2}\n' + "x".repeat(30)))).toEqual([
      { kind: "line", bytes: Buffer.from('{"a":1}') },
      { kind: "line", bytes: Buffer.from('{"b":2}') },
    ]);
    const [big] = splitter.push(Buffer.from("y".repeat(30) + "\n{}"));
    expect(big).toMatchObject({ kind: "oversize", size: 60 });
    expect(splitter.end()).toEqual([{ kind: "line", bytes: Buffer.from("{}") }]);
  });
});

describe("classifyLine", () => {
  it("answers a request nested too deep with -32600 and its id, and drops such a notification", () => {
    expect(classifyLine(line(`{"jsonrpc":"2.0","id":3,"method":"m","params":${deep(40)}}`), limits)).toMatchObject({
      kind: "reply",
      response: { id: 3, error: { code: -32600, message: expect.stringContaining("deeper than 16") } },
    });
    expect(classifyLine(line(`{"jsonrpc":"2.0","id":${deep(40)},"method":"m"}`), limits)).toMatchObject({
      kind: "reply",
      response: { id: null },
    });
    expect(classifyLine(line(`{"jsonrpc":"2.0","method":"m","params":${deep(40)}}`), limits).kind).toBe("drop");
  });
  it("fails the pending request when the editor's response to it is over a limit", () => {
    expect(
      classifyLine(
        { kind: "oversize", head: Buffer.from('{"jsonrpc":"2.0","id":9,"result":{"content":"aaaa'), size: 1e8 },
        limits,
      ),
    ).toMatchObject({
      kind: "message",
      message: { id: 9, error: { code: -32600, message: expect.stringContaining("over the") } },
    });
  });
  it("answers an over-limit request with its id and a message naming the setting", () => {
    const result = classifyLine(
      {
        kind: "oversize",
        head: Buffer.from('{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"x":"aaa'),
        size: 33 * 1024 * 1024,
      },
      limits,
    );
    expect(result).toMatchObject({
      kind: "reply",
      response: { id: "p1", error: { code: -32600, message: expect.stringContaining("max_message_bytes") } },
    });
  });
  it("answers undecodable lines with -32700 and bad envelopes with -32600, echoing nothing", () => {
    expect(classifyLine({ kind: "line", bytes: Buffer.from([0x7b, 0xff, 0x7d]) }, limits)).toMatchObject({
      kind: "reply",
      response: { id: null, error: { code: -32700 } },
    });
    expect(classifyLine(line("{nope"), limits)).toMatchObject({
      kind: "reply",
      response: { id: null, error: { code: -32700 } },
    });
    expect(classifyLine(line("[1,2]"), limits)).toMatchObject({ response: { error: { code: -32600 } } });
    expect(classifyLine(line('"just a string"'), limits)).toMatchObject({ response: { error: { code: -32600 } } });
    expect(classifyLine(line(`{"jsonrpc":"2.0","id":"${"x".repeat(2000)}","method":"m"}`), limits)).toMatchObject({
      response: { id: null, error: { code: -32600 } },
    });
    expect(classifyLine(line('{"jsonrpc":"2.0","id":4,"method":5}'), limits)).toMatchObject({
      response: { id: 4, error: { code: -32600 } },
    });
    expect(classifyLine(line('{"jsonrpc":"1.0","id":4,"method":"m"}'), limits)).toMatchObject({
      response: { id: 4, error: { code: -32600 } },
    });
    expect(
      JSON.stringify(classifyLine(line(`{"jsonrpc":"2.0","id":{"secret":"s3cr3t"},"method":"m"}`), limits)),
    ).not.toContain("s3cr3t");
  });
  it("never answers a response, and passes well-formed messages on", () => {
    expect(classifyLine(line('{"jsonrpc":"2.0","id":{"a":1},"result":{}}'), limits).kind).toBe("drop");
    expect(classifyLine(line('{"jsonrpc":"2.0","id":1,"result":{}}'), limits)).toMatchObject({
      kind: "message",
      message: { id: 1 },
    });
    expect(classifyLine(line('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'), limits).kind).toBe(
      "message",
    );
  });
});

describe("encodeMessage", () => {
  it("answers an unencodable response with -32603 for its id instead of failing", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const encoded = encodeMessage({ jsonrpc: "2.0", id: 5, result: cyclic });
    expect(encoded.ok).toBe(false);
    expect(!encoded.ok && JSON.parse(encoded.answer!)).toMatchObject({ id: 5, error: { code: -32603 } });
    expect(encodeMessage({ jsonrpc: "2.0", method: "n", params: { big: 1n } }).ok).toBe(false);
  });
  it("bounds error data and messages", () => {
    const encoded = encodeMessage({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32600, message: "m".repeat(10_000), data: { echo: "x".repeat(100_000) } },
    });
    expect(encoded.ok && encoded.line.length).toBeLessThan(4000);
    expect(encoded.ok && JSON.parse(encoded.line).error.data).toEqual({
      omitted: expect.stringContaining("characters"),
    });
  });
});
