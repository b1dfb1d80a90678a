import { describe, expect, it } from "vitest";
import { assembleOutput, ConsoleCollector, trimStack } from "../../../src/interpreter/quickjs/output.js";
import { transformForEval } from "../../../src/interpreter/quickjs/transform.js";

describe("transformForEval", () => {
  it("turns top-level let/const into var and leaves nested ones alone", async () => {
    const result = await transformForEval(
      "const a = 1\nlet b = 2\nfor (let i = 0; i < 1; i++) { const c = i }\nfunction f() { let d = 1 }",
    );
    expect(result).toEqual({
      ok: true,
      code: "var a = 1\nvar b = 2\nfor (let i = 0; i < 1; i++) { const c = i }\nfunction f() { let d = 1 }",
    });
  });

  it("hoists class declarations but not class expressions", async () => {
    const result = await transformForEval("class A extends Object { m() {} }\nconst B = class {}");
    expect(result).toEqual({ ok: true, code: "var A = class A extends Object { m() {} };\nvar B = class {}" });
  });

  it("keeps line numbers while stripping types", async () => {
    const result = await transformForEval("type T = string\ninterface I {}\nconst x: T = 'a'\nx");
    expect(result.ok && result.code.split("\n")).toEqual(["", "", "var x = 'a'", "x"]);
  });

  it("rejects import and export declarations but allows dynamic import", async () => {
    expect(await transformForEval("import x from 'y'")).toMatchObject({
      ok: false,
      name: "SyntaxError",
      message: expect.stringContaining("import declarations"),
    });
    expect(await transformForEval("export const a = 1")).toMatchObject({
      ok: false,
      message: expect.stringContaining("export declarations"),
    });
    expect((await transformForEval("await import('x')")).ok).toBe(true);
  });

  it("reports syntax errors with a position", async () => {
    expect(await transformForEval("let = ;")).toMatchObject({
      ok: false,
      name: "SyntaxError",
      message: expect.stringMatching(/\(1:\d+\)/),
    });
  });
});

describe("output", () => {
  it("caps console lines while collecting and counts what it dropped", () => {
    const collector = new ConsoleCollector(10);
    collector.push("12345");
    collector.push("67890");
    collector.push("abc");
    expect(collector.text).toBe("12345\n6789");
    expect(collector.droppedChars).toBe(5);
  });

  it("keeps at least half the budget for the result or error", () => {
    const out = assembleOutput({ console: "x".repeat(1000), consoleDropped: 0, tail: "Error: boom" }, 100);
    expect(out).toContain("[truncated 911 chars]");
    expect(out.endsWith("Error: boom")).toBe(true);
  });

  it("truncates a long result and says how much is missing", () => {
    expect(assembleOutput({ console: "", consoleDropped: 0, tail: "y".repeat(150) }, 100)).toBe(
      `${"y".repeat(100)}\n[truncated 50 chars]`,
    );
  });

  it("says (no output) when there is nothing", () => {
    expect(assembleOutput({ console: "", consoleDropped: 0, tail: "" }, 100)).toBe("(no output)");
  });

  it("drops prelude frames and shortens deep stacks", () => {
    const frames = Array.from({ length: 15 }, (_, i) => `    at f${i} (eval.js:1:1)`);
    const trimmed = trimStack(["    at wrapper (<interpreter>:3:4)", ...frames].join("\n"));
    expect(trimmed.split("\n")).toHaveLength(11);
    expect(trimmed).not.toContain("<interpreter>");
    expect(trimmed.endsWith("    ... 5 more frames")).toBe(true);
  });
});
