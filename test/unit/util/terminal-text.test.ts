// What the CLI's printers make of control characters (util/terminal-text.ts).
import { describe, expect, it } from "vitest";
import { terminalSafe, terminalSafeIo } from "../../../src/util/terminal-text.js";

describe("terminalSafe", () => {
  it("shows ESC, BEL, backspace, a lone CR, DEL, C1 and bidi controls as escapes", () => {
    expect(terminalSafe("a\u001b]0;t\u0007b")).toBe("a\\x1b]0;t\\x07b");
    expect(terminalSafe("x\by\rz")).toBe("x\\x08y\\x0dz");
    expect(terminalSafe("\u007f\u009b31m")).toBe("\\u007f\\u009b31m");
    expect(terminalSafe("evil\u202etxt.exe \u2066x\u2069 \u200f")).toBe("evil\\u202etxt.exe \\u2066x\\u2069 \\u200f");
  });

  it("keeps newlines, tabs and ordinary Unicode; CRLF becomes LF", () => {
    expect(terminalSafe("a\tb\nc\r\nd ✓ é 日本")).toBe("a\tb\nc\nd ✓ é 日本");
  });

  it("is safe for a sequence split over two chunks (each byte escaped on its own)", () => {
    expect(terminalSafe("red \u001b") + terminalSafe("[31m")).toBe("red \\x1b[31m");
  });

  it("keeps a JSON document valid JSON with the same strings", () => {
    const value = { name: "a\u202eb\u009bc\u007f", esc: "\u001b" };
    const printed = terminalSafe(JSON.stringify(value));
    expect(printed).not.toMatch(/[\u007f-\u009f\u202e]/);
    expect(JSON.parse(printed)).toEqual(value);
  });
});

describe("terminalSafeIo", () => {
  it("escapes both streams, or stderr only when stdout is raw", () => {
    const out: string[] = [];
    const err: string[] = [];
    const io = { stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
    terminalSafeIo(io).stdout("\u001b[2J");
    terminalSafeIo(io, { rawStdout: true }).stdout("\u001b[2J");
    terminalSafeIo(io, { rawStdout: true }).stderr("\u001b[2J");
    expect(out).toEqual(["\\x1b[2J", "\u001b[2J"]);
    expect(err).toEqual(["\\x1b[2J"]);
  });
});
