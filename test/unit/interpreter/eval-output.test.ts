import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveLimits } from "../../../src/interpreter/quickjs/limits.js";
import { createSandbox, type Sandbox } from "../../../src/interpreter/quickjs/sandbox.js";
import { bareHost } from "./helpers.js";

// What the model sees for ordinary scripts: results, console lines, errors, syntax handling.

let sandbox: Sandbox;
const io = bareHost();
const run = async (code: string) => (await sandbox.run(code, io)).output;

beforeAll(async () => {
  sandbox = await createSandbox({ limits: resolveLimits({ timeoutMs: 2000 }) });
});
afterAll(() => sandbox.dispose());

describe("results", () => {
  it("prints strings raw and other values as JSON", async () => {
    expect(await run("'hello'")).toBe("hello");
    expect(await run("1 + 2 * 3")).toBe("7");
    expect(await run("null")).toBe("null");
    expect(JSON.parse(await run("({ a: 1, b: [1, 2] })"))).toEqual({ a: 1, b: [1, 2] });
  });

  it("says (no output) when nothing was printed and the result is undefined", async () => {
    expect(await run("undefined")).toBe("(no output)");
    expect(await run("const unused = 1")).toBe("(no output)");
    expect(await run("")).toBe("(no output)");
  });

  it("returns the last expression even with trailing comments", async () => {
    expect(await run("const a = 2\na * 21 // the answer\n/* done */")).toBe("42");
  });

  it("treats a parenthesised object literal as the value and a bare block as a block", async () => {
    expect(JSON.parse(await run("({ x: 1 })"))).toEqual({ x: 1 });
    expect(await run("{ x: 1 }")).toBe("1");
  });

  it("returns the value of the branch when an if statement comes last", async () => {
    expect(await run("const n = 5\nif (n > 3) { 'big' } else { 'small' }")).toBe("big");
  });

  it("handles semicolon-less code", async () => {
    expect(await run("const xs = [1, 2, 3]\nconst total = xs.reduce((a, b) => a + b, 0)\ntotal * 2")).toBe("12");
  });

  it("supports top-level await and awaits a promise left as the result", async () => {
    expect(await run("const v = await Promise.resolve(20)\nv + 1")).toBe("21");
    expect(await run("Promise.resolve('later')")).toBe("later");
  });

  it("strips TypeScript-only syntax", async () => {
    const code = [
      "interface Point { x: number; y: number }",
      "type Pair = [number, number]",
      "function norm(p: Point): number { return Math.abs(p.x) + Math.abs(p.y) }",
      "enum Color { Red, Green }",
      "const pair: Pair = [1, 2] as Pair",
      "norm({ x: -3, y: 4 } satisfies Point) + Color.Green + pair[1]!",
    ].join("\n");
    expect(await run(code)).toBe("10");
  });

  it("renders values JSON cannot show faithfully", async () => {
    const out = JSON.parse(
      await run("const o: any = { big: 10n, f() {}, m: new Map([['k', 1]]), s: new Set([1]) }; o.self = o; o"),
    );
    expect(out).toEqual({ big: "10n", f: "[Function: f]", m: { k: 1 }, s: [1], self: "[Circular]" });
  });
});

describe("console", () => {
  it("prints log/info/debug plainly and prefixes warn/error, before the result", async () => {
    const out = await run(
      "console.log('a', 1, { b: 2 }); console.info('i'); console.debug('d'); console.warn('w'); console.error('e'); 'end'",
    );
    expect(out).toBe('a 1 {"b":2}\ni\nd\n[warn] w\n[error] e\nend');
  });

  it("truncates long output with a count of what was cut", async () => {
    const limited = await createSandbox({ limits: resolveLimits({ maxOutputChars: 200 }) });
    try {
      const out = (await limited.run("for (let i = 0; i < 1000; i++) console.log('line ' + i)", io)).output;
      expect(out.length).toBeLessThan(260);
      expect(out).toMatch(/\[truncated \d+ chars\]$/);
      expect(out.startsWith("line 0\nline 1\n")).toBe(true);
      const dropped = Number(/\[truncated (\d+) chars\]/.exec(out)![1]);
      const full = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join("\n").length;
      expect(out.length - `[truncated ${dropped} chars]`.length - 1 + dropped).toBe(full);
    } finally {
      limited.dispose();
    }
  });

  it("keeps the error visible when the console output is long", async () => {
    const limited = await createSandbox({ limits: resolveLimits({ maxOutputChars: 300 }) });
    try {
      const out = (
        await limited.run(
          "for (let i = 0; i < 500; i++) console.log('noise ' + i)\nthrow new RangeError('the real problem')",
          io,
        )
      ).output;
      expect(out).toContain("[truncated");
      expect(out).toContain("RangeError: the real problem");
    } finally {
      limited.dispose();
    }
  });
});

describe("errors", () => {
  it("reports Name: message plus the stack", async () => {
    const outcome = await sandbox.run("function inner() { throw new TypeError('bad input') }\ninner()", io);
    expect(outcome.status).toBe("error");
    expect(outcome.output).toMatch(/^TypeError: bad input\n\s+at inner \(eval\.js:1:/);
  });

  it("keeps console output that came before the error", async () => {
    expect(await run("console.log('step 1'); null.x")).toMatch(/^step 1\nTypeError: /);
  });

  it("reports syntax errors with a location, and explains top-level return and import", async () => {
    expect(await run("const = 1")).toMatch(/^SyntaxError: .*\(1:\d+\)/);
    expect(await run("return 5")).toContain("top-level return is not allowed");
    expect(await run("import fs from 'node:fs'\nfs")).toContain("import declarations are not available");
  });

  it("reports non-Error throws", async () => {
    expect(await run("throw 'plain string'")).toBe("Uncaught: plain string");
  });
});

describe("sandbox globals", () => {
  it("has no fetch, require, process or module system", async () => {
    expect(
      await run("[typeof fetch, typeof require, typeof process, typeof module, typeof XMLHttpRequest].join(',')"),
    ).toBe("undefined,undefined,undefined,undefined,undefined");
    expect(await run("await import('node:fs').then(() => 'loaded', (e) => 'failed')")).toBe("failed");
  });

  it("blocks the clock by default but allows explicit dates", async () => {
    expect(await run("Date.now()")).toMatch(/^Error: The clock is disabled/);
    expect(await run("new Date()")).toMatch(/^Error: The clock is disabled/);
    expect(await run("Date()")).toMatch(/^Error: The clock is disabled/);
    expect(await run("new Date(Date.UTC(2024, 1, 29)).toISOString()")).toBe("2024-02-29T00:00:00.000Z");
    expect(await run("new Date('2020-01-02') instanceof Date")).toBe("true");
  });

  it("reads the clock when allow_clock is set", async () => {
    const clocked = await createSandbox({ limits: resolveLimits({ allowClock: true }) });
    try {
      const year = Number((await clocked.run("new Date().getUTCFullYear()", io)).output);
      expect(year).toBe(new Date().getUTCFullYear());
    } finally {
      clocked.dispose();
    }
  });

  it("fires timers while the eval waits and drops the rest when it returns", async () => {
    expect(await run("await new Promise((resolve) => setTimeout(() => resolve('fired'), 10))")).toBe("fired");
    expect(await run("globalThis.late = 'no'; setTimeout(() => { globalThis.late = 'yes' }, 0); 'returned'")).toBe(
      "returned",
    );
    // Not a wait for something: a quiet period in which a timer left behind by the eval would fire.
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await run("late")).toBe("no");
  });
});
