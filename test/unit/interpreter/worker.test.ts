import { afterAll, describe, expect, it } from "vitest";
import type { EngineHost } from "../../../src/interpreter/quickjs/eval-run.js";
import { resolveLimits } from "../../../src/interpreter/quickjs/limits.js";
import { createWorkerSandboxFactory } from "../../../src/interpreter/worker/worker-client.js";
import { bareHost } from "./helpers.js";

// The default engine placement: interpreters in a worker thread, tool calls answered by the main thread.

const workers = createWorkerSandboxFactory();
afterAll(() => workers.shutdown());

describe("interpreter worker", () => {
  it("keeps the main thread responsive while a script spins", async () => {
    const sandbox = await workers.create({ limits: resolveLimits({ timeoutMs: 2000 }) });
    try {
      await sandbox.run("'warm up'", bareHost());
      const events: string[] = [];
      const spinning = sandbox.run("for (;;) {}", bareHost()).then((outcome) => events.push(`eval ${outcome.status}`));
      // The point of the test: a main-thread timer fires while the worker spins.
      await new Promise((resolve) => setTimeout(resolve, 20));
      events.push("main thread tick");
      await spinning;
      expect(events).toEqual(["main thread tick", "eval timeout"]);
    } finally {
      sandbox.dispose();
    }
  });

  it("routes tool calls to the main thread and returns their text or error", async () => {
    const calls: Array<[string, string]> = [];
    const host: EngineHost = {
      ...bareHost(),
      async callTool(callName, json) {
        calls.push([callName, json]);
        if (callName === "grep") throw Object.assign(new TypeError("bad pattern"), { name: "TypeError" });
        return `contents of ${JSON.parse(json).file_path}`;
      },
    };
    const sandbox = await workers.create({
      limits: resolveLimits({}),
      tools: [
        ["readFile", "read_file"],
        ["grep", "grep"],
      ],
    });
    try {
      const outcome = await sandbox.run(
        "const a = await tools.readFile({ file_path: '/x' })\nconst b = await tools.grep({ pattern: '(' }).catch((e) => e.name + ': ' + e.message);\n[a, b].join(' | ')",
        host,
      );
      expect(outcome.output).toBe("contents of /x | TypeError: bad pattern");
      expect(calls).toEqual([
        ["readFile", '{"file_path":"/x"}'],
        ["grep", '{"pattern":"("}'],
      ]);
    } finally {
      sandbox.dispose();
    }
  });

  it("ends deep nesting with QuickJS's stack overflow, thanks to the worker's larger stack", async () => {
    const sandbox = await workers.create({ limits: resolveLimits({}) });
    try {
      const outcome = await sandbox.run("JSON.parse('['.repeat(200000))", bareHost());
      expect(outcome.status).toBe("error");
      expect(outcome.output).toContain("stack overflow");
      expect((await sandbox.run("'usable'", bareHost())).output).toBe("usable");
    } finally {
      sandbox.dispose();
    }
  });

  it("reports a crash when the worker dies mid-eval and starts a new worker afterwards", async () => {
    const own = createWorkerSandboxFactory();
    const sandbox = await own.create({ limits: resolveLimits({ timeoutMs: 60_000 }) });
    await sandbox.run("'warm up'", bareHost());
    const spinning = sandbox.run("for (;;) {}", bareHost());
    await own.shutdown();
    const outcome = await spinning;
    expect(outcome).toMatchObject({ status: "crashed", lostState: true });
    expect(sandbox.usable).toBe(false);
    const fresh = await own.create({ limits: resolveLimits({}) });
    expect((await fresh.run("6 * 7", bareHost())).output).toBe("42");
    await own.shutdown();
  });

  it("refuses to run after dispose", async () => {
    const sandbox = await workers.create({ limits: resolveLimits({}) });
    sandbox.dispose();
    await expect(sandbox.run("1", bareHost())).rejects.toThrow("can no longer run code");
  });
});
