import { describe, expect, it } from "vitest";
import { readLineId } from "../../../src/acp/wire/id-reader.js";
import { classifyLine } from "../../../src/acp/wire/inbound.js";
import { scanJsonLine } from "../../../src/acp/wire/json-scan.js";
import { createLineSplitter } from "../../../src/acp/wire/line-splitter.js";
import { encodeMessage } from "../../../src/acp/wire/outbound.js";

const limits = { maxMessageBytes: 4096, maxDepth: 16, maxValues: 1000 };
const line = (text: string) => ({ kind: "line" as const, bytes: Buffer.from(text) });
const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
const oversize = (head: string, size = 1e8) => ({
  kind: "oversize" as const,
  head: Buffer.from(head),
  size,
  id: readLineId(Buffer.from(head), 1e6),
});

describe("scanJsonLine", () => {
  it("measures depth outside strings only and sees the top-level members", () => {
    const shape = scanJsonLine(Buffer.from(`{"a":"[[[[\\"[[[","b":{"c":[1]},"id":"x\\"y","method":"m"}`), 100);
    expect(shape).toEqual({ depth: 3, values: 6, hasMethod: true, hasOutcome: false });
    expect(scanJsonLine(Buffer.from(`{"params":{"method":5},"id":1}`), 10).hasMethod).toBe(false);
    expect(scanJsonLine(Buffer.from(`{"id": 42 ,"result":{}}`), 10)).toMatchObject({ hasOutcome: true });
  });
  it("stops counting past the limit and still sees members written after the deep part", () => {
    const shape = scanJsonLine(Buffer.from(`{"params":${deep(5000)},"id":7,"method":"m"}`), 100);
    expect(shape.depth).toBe(101);
    expect(shape.hasMethod).toBe(true);
  });
  it("counts the values JSON.parse would build", () => {
    expect(scanJsonLine(Buffer.from(`{"a":[${"{},".repeat(999)}{}]}`), 10).values).toBe(2 + 1000 + 999);
    expect(scanJsonLine(Buffer.from(`{"a":"${"{},".repeat(999)}"}`), 10).values).toBe(1);
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
    expect(big).toMatchObject({ kind: "oversize", size: 60, id: { kind: "unreadable" } });
    expect(splitter.end()).toEqual([{ kind: "line", bytes: Buffer.from("{}") }]);
  });
  it("reads the id of an over-limit line wherever it is, as it streams past", () => {
    const splitter = createLineSplitter(100);
    const text = `{"jsonrpc":"2.0","method":"m","params":{"x":"${"a".repeat(5000)}"},"id":"at-the-end"}\n`;
    const lines = [];
    for (let i = 0; i < text.length; i += 7) lines.push(...splitter.push(Buffer.from(text.slice(i, i + 7))));
    expect(lines).toEqual([
      expect.objectContaining({ kind: "oversize", size: text.length - 1, id: { kind: "id", raw: '"at-the-end"' } }),
    ]);
  });
  it("drops a byte-order mark opening a line", () => {
    const splitter = createLineSplitter(100);
    expect(splitter.push(Buffer.from('\ufeff{"a":1}\n\ufeff{"b":2}\n'))).toEqual([
      { kind: "line", bytes: Buffer.from('{"a":1}') },
      { kind: "line", bytes: Buffer.from('{"b":2}') },
    ]);
  });
});

describe("classifyLine", () => {
  it("answers a request nested too deep with -32600 and its id, and drops such a notification", () => {
    expect(classifyLine(line(`{"jsonrpc":"2.0","id":3,"method":"m","params":${deep(40)}}`), limits)).toMatchObject({
      kind: "reply",
      id: "3",
      error: { code: -32600, message: expect.stringContaining("deeper than 16") },
    });
    expect(classifyLine(line(`{"jsonrpc":"2.0","id":${deep(40)},"method":"m"}`), limits)).toMatchObject({
      kind: "reply",
      id: "null",
    });
    expect(classifyLine(line(`{"jsonrpc":"2.0","method":"m","params":${deep(40)}}`), limits).kind).toBe("drop");
  });
  it("refuses a line of more values than the limit, with its id, before parsing it", () => {
    const wide = `{"jsonrpc":"2.0","id":"w","method":"m","params":{"x":[${"{},".repeat(1000)}{}]}}`;
    expect(classifyLine(line(wide), { ...limits, maxMessageBytes: 1e6 })).toMatchObject({
      kind: "reply",
      id: '"w"',
      error: {
        code: -32600,
        message: expect.stringContaining("more than 1000 JSON values in one message ([acp] max_json_values)"),
      },
    });
  });
  it("fails the pending request when the editor's response to it is over a limit", () => {
    expect(classifyLine(oversize('{"jsonrpc":"2.0","id":9,"result":{"content":"aaaa'), limits)).toMatchObject({
      kind: "message",
      message: { id: 9, error: { code: -32600, message: expect.stringContaining("over the") } },
    });
  });
  it("answers an over-limit request with its id and a message naming the setting", () => {
    const result = classifyLine(
      oversize('{"jsonrpc":"2.0","id":"p1","method":"session/prompt","params":{"x":"aaa', 33 * 1024 * 1024),
      limits,
    );
    expect(result).toMatchObject({
      kind: "reply",
      id: '"p1"',
      error: { code: -32600, message: expect.stringContaining("max_message_bytes") },
    });
  });
  it("answers undecodable lines with -32700 and bad envelopes with -32600, echoing nothing but the id", () => {
    expect(classifyLine({ kind: "line", bytes: Buffer.from([0x7b, 0xff, 0x7d]) }, limits)).toMatchObject({
      kind: "reply",
      id: "null",
      error: { code: -32700 },
    });
    expect(classifyLine(line("{nope"), limits)).toMatchObject({ kind: "reply", id: "null", error: { code: -32700 } });
    expect(classifyLine(line("[1,2]"), limits)).toMatchObject({ id: "null", error: { code: -32600 } });
    expect(classifyLine(line('"just a string"'), limits)).toMatchObject({ id: "null", error: { code: -32600 } });
    expect(classifyLine(line('{"jsonrpc":"2.0","id":4,"method":5}'), limits)).toMatchObject({
      id: "4",
      error: { code: -32600 },
    });
    expect(classifyLine(line('{"jsonrpc":"1.0","id":4,"method":"m"}'), limits)).toMatchObject({
      id: "4",
      error: { code: -32600 },
    });
    expect(
      JSON.stringify(classifyLine(line(`{"jsonrpc":"2.0","id":{"secret":"s3cr3t"},"method":"m"}`), limits)),
    ).not.toContain("s3cr3t");
  });
  it("answers a line broken after its id with that id, and one broken before it with null", () => {
    const cases: Array<[string, string]> = [
      ['{"jsonrpc":"2.0","id":"t1","method":"session/li', '"t1"'],
      ['{"jsonrpc":"2.0","id":12345678901234567890123,"method":"m","params":{,}}', "12345678901234567890123"],
      ['{"jsonrpc":"2.0","id":"a\\u00e9","method":"m"} trailing', '"a\\u00e9"'],
      ['{"jsonrpc":"2.0","method":"m","id":"cut', "null"],
      ['{"jsonrpc":"2.0",,"id":5,"method":"m"}', "null"],
      ['xx{"jsonrpc":"2.0","id":5,"method":"m"}', "null"],
    ];
    for (const [text, id] of cases)
      expect(classifyLine(line(text), limits)).toMatchObject({ kind: "reply", id, error: { code: -32700 } });
  });
  it("takes ids of any length up to the line limit, and keeps them as written", () => {
    const long = `"${"x".repeat(2000)}\\u00e9"`;
    expect(classifyLine(line(`{"jsonrpc":"2.0","id":${long},"method":"m"}`), limits)).toMatchObject({
      kind: "request",
      id: long,
      message: { id: `${"x".repeat(2000)}é` },
    });
    expect(classifyLine(line('{"jsonrpc":"2.0","id":1.50,"method":"m"}'), limits)).toMatchObject({ id: "1.50" });
  });
  it("never answers a response, and passes well-formed messages on", () => {
    expect(classifyLine(line('{"jsonrpc":"2.0","id":{"a":1},"result":{}}'), limits).kind).toBe("drop");
    expect(classifyLine(line('{"jsonrpc":"2.0","id":1,"result":{}}'), limits)).toMatchObject({
      kind: "message",
      message: { id: 1 },
    });
    expect(classifyLine(line('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}'), limits).kind).toBe(
      "request",
    );
    expect(classifyLine(line('{"jsonrpc":"2.0","method":"session/cancel","params":{}}'), limits).kind).toBe("message");
  });
});

describe("encodeMessage", () => {
  it("answers an unencodable response with -32603 for its id instead of failing", () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const encoded = encodeMessage({ jsonrpc: "2.0", id: 5, result: cyclic }, '"as-sent"');
    expect(encoded.ok).toBe(false);
    expect(!encoded.ok && JSON.parse(encoded.answer!)).toMatchObject({ id: "as-sent", error: { code: -32603 } });
    expect(encodeMessage({ jsonrpc: "2.0", method: "n", params: { big: 1n } }).ok).toBe(false);
  });
  it("writes the editor's id as it was written, in the SDK's member order", () => {
    const encoded = encodeMessage({ jsonrpc: "2.0", id: "#7", result: { a: 1 } }, "123456789012345678901234567890");
    expect(encoded).toEqual({
      ok: true,
      line: '{"jsonrpc":"2.0","id":123456789012345678901234567890,"result":{"a":1}}\n',
    });
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
