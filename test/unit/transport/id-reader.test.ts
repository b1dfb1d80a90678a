import { describe, expect, it } from "vitest";
import { createIdReader, readLineId } from "../../../src/acp/wire/id-reader.js";
import { createRandom } from "../../robust/fuzz-messages.js";

const read = (text: string) => readLineId(Buffer.from(text), 1_000_000);
const id = (raw: string) => ({ kind: "id", raw });
const unreadable = { kind: "unreadable" };

describe("readLineId", () => {
  it("returns the id as written: escapes, long numbers and exponents untouched", () => {
    expect(read('{"jsonrpc":"2.0","id":"a\\u0041\\"","method":"m"}')).toEqual(id('"a\\u0041\\""'));
    expect(read('{"id":123456789012345678901234567890,"method":"m"}')).toEqual(id("123456789012345678901234567890"));
    expect(read('{"method":"m","params":{"id":5,"x":[1,{"a":"b"}]},"id" :  -1.5e+3 }')).toEqual(id("-1.5e+3"));
    expect(read('{"id":null,"method":"m"}')).toEqual(id("null"));
    expect(read('{"\\u0069d":"escaped key"}')).toEqual(id('"escaped key"'));
    expect(read(`{"a":${"[".repeat(10_000)}${"]".repeat(10_000)},"id":"after the deep part"}`)).toEqual(
      id('"after the deep part"'),
    );
  });
  it("says none only for a line that is valid to its end", () => {
    expect(read('{"jsonrpc":"2.0","method":"m","params":[{},[]]}')).toEqual({ kind: "none" });
    expect(read('{"jsonrpc":"2.0","method":"m"')).toEqual(unreadable);
    expect(read("{} x")).toEqual(unreadable);
  });
  it("cannot read an id that is cut off, not a scalar, or comes after a syntax error", () => {
    for (const text of [
      '{"id":"cut',
      '{"id":12',
      '{"id":true}',
      '{"id":{},"method":"m"}',
      '{"id":[1]}',
      '{"jsonrpc":"2.0",,"id":1}',
      '{"a":1}}',
      '{"id":012}',
      '{"id":1.}',
      '{"id":"bad \\x escape"}',
      "[1]",
      'xx{"id":1}',
    ])
      expect(read(text), text).toEqual(unreadable);
  });
  it("cannot read an id that is not UTF-8 or longer than the limit", () => {
    const bad = Buffer.concat([Buffer.from('{"id":"a'), Buffer.from([0xff]), Buffer.from('"}')]);
    expect(readLineId(bad, 100)).toEqual(unreadable);
    expect(readLineId(Buffer.from(`{"id":"${"y".repeat(20)}"}`), 10)).toEqual(unreadable);
  });
  it("reads the same in pieces of any size as in one", () => {
    const rnd = createRandom(7);
    const ids = ['"plain"', '"\\u00e9\\ud83d\\ude00 é 😀"', "1e400", "-0", `"${"\\n".repeat(300)}"`, "null"];
    for (let round = 0; round < 200; round++) {
      const raw = rnd.pick(ids);
      const filler = JSON.stringify({ s: 'x\\"y'.repeat(rnd.int(50)), n: [1, [2, [3]], { k: -0.5e-3 }], t: true });
      const text = rnd.chance(0.5) ? `{"id":${raw},"params":${filler}}` : `{"params":${filler},"id":${raw}}`;
      const bytes = Buffer.from(text);
      const reader = createIdReader(1_000_000);
      for (let at = 0; at < bytes.length;) {
        const size = 1 + rnd.int(9);
        if (reader.feed(bytes.subarray(at, at + size))) break;
        at += size;
      }
      expect(reader.finish(), text).toEqual(id(raw));
    }
  });
});
