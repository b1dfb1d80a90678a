import { describe, expect, it } from "vitest";
import {
  DEFAULT_INTERPRETER_LIMITS,
  limitsFromConfig,
  resolveLimits,
} from "../../../src/interpreter/quickjs/limits.js";
import { createSandbox, type EngineOutcome } from "../../../src/interpreter/quickjs/sandbox.js";
import { defaultConfig } from "../../../src/config/config-file.js";
import { bareHost } from "./helpers.js";

// Runaway scripts end with a clear error, and the host stays healthy: a fresh interpreter works
// afterwards and the process did not balloon. Each case uses its own interpreter, as a new turn would.

const io = () => bareHost();
const GIB = 1024 * 1024 * 1024;

async function runaway(code: string, limits = resolveLimits({ timeoutMs: 20_000 })): Promise<EngineOutcome> {
  const sandbox = await createSandbox({ limits });
  try {
    return await sandbox.run(code, io());
  } finally {
    sandbox.dispose();
  }
}

async function expectHealthyHost(): Promise<void> {
  const fresh = await createSandbox({ limits: resolveLimits({}) });
  try {
    const outcome = await fresh.run("[1, 2, 3].map((n) => n * 2).join(',')", io());
    expect(outcome).toMatchObject({ status: "ok", output: "2,4,6" });
  } finally {
    fresh.dispose();
  }
  expect(process.memoryUsage().rss).toBeLessThan(1.5 * GIB);
}

describe("memory limit (64 MB, a capped WASM memory per interpreter)", () => {
  it("stops a string-building loop that QuickJS's own accounting misses", async () => {
    const outcome = await runaway("const parts = []; for (;;) parts.push('x'.repeat(1024) + parts.length)");
    expect(outcome.status).toBe("out_of_memory");
    expect(outcome.output).toContain("InternalError: out of memory (limit: 64 MB");
    await expectHealthyHost();
  });

  it("stops an array of objects growing forever and resets the exhausted interpreter", async () => {
    const outcome = await runaway("globalThis.keep = []; for (;;) keep.push({ i: keep.length })");
    expect(outcome.status).toBe("out_of_memory");
    expect(outcome.lostState).toBe(true);
    expect(outcome.output).toContain("The interpreter was reset");
    await expectHealthyHost();
  });

  it("refuses an ArrayBuffer larger than the cap and keeps the interpreter usable", async () => {
    const sandbox = await createSandbox({ limits: resolveLimits({}) });
    try {
      await sandbox.run("globalThis.kept = 'still here'", io());
      const outcome = await sandbox.run("new ArrayBuffer(100 * 1024 * 1024)", io());
      expect(outcome.status).toBe("out_of_memory");
      expect(outcome.lostState).toBe(false);
      expect((await sandbox.run("kept", io())).output).toBe("still here");
    } finally {
      sandbox.dispose();
    }
    await expectHealthyHost();
  });

  it("honours a smaller configured cap", async () => {
    const outcome = await runaway(
      "new ArrayBuffer(24 * 1024 * 1024).byteLength",
      resolveLimits({ memoryLimitBytes: 16 * 1024 * 1024 }),
    );
    expect(outcome.status).toBe("out_of_memory");
    expect(outcome.output).toContain("limit: 16 MB");
  });
});

describe("stack limit", () => {
  it("turns deep recursion into a catchable stack overflow", async () => {
    const outcome = await runaway("function dive(n) { return dive(n + 1) + 1 }\ndive(0)");
    expect(outcome.status).toBe("error");
    expect(outcome.output).toMatch(/^InternalError: stack overflow\n/);
    expect(outcome.output).toMatch(/more frames$/);
    await expectHealthyHost();
  });

  it("survives nesting so deep that the host stack runs out first, and reports a reset", async () => {
    const sandbox = await createSandbox({ limits: resolveLimits({}) });
    try {
      const outcome = await sandbox.run("JSON.parse('['.repeat(200000))", io());
      // QuickJS's stack check cannot see the host stack the WASM frames use, so this one ends
      // in a host RangeError: the engine is written off, the process is fine.
      expect(outcome.status).toBe("crashed");
      expect(outcome.output).toContain("InternalError: the interpreter crashed (Maximum call stack size exceeded)");
      expect(outcome.output).toContain("The interpreter was reset");
      expect(sandbox.usable).toBe(false);
    } finally {
      sandbox.dispose();
    }
    await expectHealthyHost();
  });
});

describe("time limit", () => {
  it("interrupts an infinite loop at the deadline", async () => {
    const outcome = await runaway("let spins = 0; while (true) { spins++ }", resolveLimits({ timeoutMs: 200 }));
    expect(outcome.status).toBe("timeout");
    expect(outcome.output).toMatch(/^TimeoutError: execution interrupted after 200 ms/);
    await expectHealthyHost();
  });

  it("cannot be caught by the script", async () => {
    const outcome = await runaway("try { for (;;) {} } catch (e) { 'escaped' }", resolveLimits({ timeoutMs: 200 }));
    expect(outcome.status).toBe("timeout");
  });

  it("interrupts a promise that never settles", async () => {
    const outcome = await runaway("await new Promise(() => {})", resolveLimits({ timeoutMs: 200 }));
    expect(outcome.status).toBe("timeout");
    expect(outcome.output).toContain("Promise timed out — execution interrupted after 200 ms");
    await expectHealthyHost();
  });

  it("interrupts an endless chain of microtasks and leaves the interpreter usable", async () => {
    const sandbox = await createSandbox({ limits: resolveLimits({ timeoutMs: 200 }) });
    try {
      const outcome = await sandbox.run(
        "globalThis.ticks = 0; (async () => { for (;;) { ticks++; await null } })(); await new Promise(() => {})",
        io(),
      );
      expect(outcome.status).toBe("timeout");
      const before = Number((await sandbox.run("ticks", io())).output);
      const after = Number((await sandbox.run("ticks", io())).output);
      expect(after).toBe(before);
    } finally {
      sandbox.dispose();
    }
  });

  it("counts waiting on timers against the deadline", async () => {
    const outcome = await runaway(
      "await new Promise((r) => setTimeout(r, 60_000)); 'woke'",
      resolveLimits({ timeoutMs: 200 }),
    );
    expect(outcome.status).toBe("timeout");
  });
});

describe("limits from config.toml", () => {
  it("maps the [interpreter] section and clamps values the engine cannot honour", () => {
    const config = defaultConfig().interpreter;
    expect(limitsFromConfig(config)).toEqual(DEFAULT_INTERPRETER_LIMITS);
    const custom = limitsFromConfig({
      ...config,
      memory_limit_mb: 4,
      max_stack_kb: 4096,
      timeout_ms: 100,
      max_tool_calls: 3,
      allow_clock: true,
    });
    expect(custom).toMatchObject({
      memoryLimitBytes: 16 * 1024 * 1024,
      maxStackBytes: 1024 * 1024,
      timeoutMs: 100,
      maxToolCalls: 3,
      allowClock: true,
    });
  });
});
