import { afterAll, describe, expect, it } from "vitest";
import { createEvalTool, type EvalToolOptions } from "../../../src/interpreter/eval-tool.js";
import { resolveLimits } from "../../../src/interpreter/quickjs/limits.js";
import { createWorkerSandboxFactory } from "../../../src/interpreter/worker/worker-client.js";
import type { AnyTool, SubagentRequest, ToolResult } from "../../../src/tools/types.js";
import { fakeContext, fakeLs, fakeTurn, text, waitFor } from "./helpers.js";

const limits = resolveLimits({ timeoutMs: 2000 });
// One worker for the whole file: starting one from TypeScript sources takes a while.
const workers = createWorkerSandboxFactory();
afterAll(() => workers.shutdown());
const evalTool = (options: Partial<EvalToolOptions> = {}) =>
  createEvalTool({
    limits,
    allowlist: [],
    mode: "default",
    hasSubagents: true,
    createSandbox: workers.create,
    ...options,
  });

/** A fake subagent runner that answers after a tick and records how many ran at once. */
function recordingSubagents() {
  const state = { inFlight: 0, maxInFlight: 0, requests: [] as SubagentRequest[] };
  const runSubagent = async (request: SubagentRequest): Promise<ToolResult> => {
    state.requests.push(request);
    state.inFlight += 1;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    await new Promise((resolve) => setTimeout(resolve, 5));
    state.inFlight -= 1;
    const answer = request.responseSchema
      ? JSON.stringify({ echoed: request.description })
      : `done: ${request.description}`;
    return { content: [{ type: "text", text: answer }] };
  };
  return { state, runSubagent };
}

describe("task()", () => {
  it("fans out 40 subagents with at most 32 running at once", async () => {
    const { state, runSubagent } = recordingSubagents();
    const tool = evalTool();
    const turn = fakeTurn();
    const result = await tool.execute(
      {
        code: [
          "const jobs = Array.from({ length: 40 }, (_, i) => task({ description: 'job ' + i, subagentType: 'general-purpose' }))",
          "const answers = await Promise.all(jobs)",
          "answers.length + ' ' + answers[0] + ' ' + answers[39]",
        ].join("\n"),
      },
      fakeContext({ turn, runSubagent }),
    );
    expect(text(result)).toBe("40 done: job 0 done: job 39");
    expect(state.requests).toHaveLength(40);
    expect(state.maxInFlight).toBe(32);
    turn.end();
  });

  it("parses the answer as JSON when a responseSchema is given, in either key spelling", async () => {
    const { state, runSubagent } = recordingSubagents();
    const tool = evalTool();
    const turn = fakeTurn();
    const schema = "{ type: 'object', properties: { echoed: { type: 'string' } } }";
    const result = await tool.execute(
      {
        code: [
          `const a = await task({ description: 'camel', subagentType: 'reviewer', responseSchema: ${schema} })`,
          `const b = await task({ description: 'snake', subagent_type: 'reviewer', response_schema: ${schema} })`,
          "a.echoed + ' ' + b.echoed",
        ].join("\n"),
      },
      fakeContext({ turn, runSubagent }),
    );
    expect(text(result)).toBe("camel snake");
    expect(state.requests[1]).toEqual({
      description: "snake",
      subagentType: "reviewer",
      responseSchema: { type: "object", properties: { echoed: { type: "string" } } },
    });
    turn.end();
  });

  it("rejects unknown keys and missing fields without starting a subagent", async () => {
    const { state, runSubagent } = recordingSubagents();
    const tool = evalTool();
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, runSubagent });
    expect(
      text(await tool.execute({ code: "await task({ description: 'x', subagentType: 'y', model: 'z' })" }, ctx)),
    ).toContain("task() got unknown key(s) model");
    expect(text(await tool.execute({ code: "await task({ description: 'x' })" }, ctx))).toContain(
      "task() needs a subagentType",
    );
    expect(state.requests).toEqual([]);
    turn.end();
  });

  it("is a frozen global that code cannot replace, and absent without subagents", async () => {
    const { runSubagent } = recordingSubagents();
    const withTask = evalTool();
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, runSubagent });
    const replaced = await withTask.execute(
      {
        code: "task = () => 'mine'; task.extra = 1; [typeof task.extra, Object.isFrozen(task), task === globalThis.task].join(' ')",
      },
      ctx,
    );
    expect(text(replaced)).toBe("undefined true true");
    const without = evalTool({ hasSubagents: false });
    expect(text(await without.execute({ code: "typeof task" }, fakeContext({ turn: fakeTurn() })))).toBe("undefined");
    turn.end();
  });

  it("does not count time spent waiting for subagents against the time limit", async () => {
    const slow = async (): Promise<ToolResult> => {
      // Longer than the eval's 150 ms limit: the point of the test.
      await new Promise((resolve) => setTimeout(resolve, 400));
      return { content: [{ type: "text", text: "slow answer" }] };
    };
    const tool = evalTool({ limits: resolveLimits({ timeoutMs: 150 }) });
    const turn = fakeTurn();
    const result = await tool.execute(
      { code: "await task({ description: 'x', subagentType: 'y' })" },
      fakeContext({ turn, runSubagent: slow }),
    );
    expect(text(result)).toBe("slow answer");
    turn.end();
  });
});

describe("cancel", () => {
  const patient = resolveLimits({ timeoutMs: 60_000 });

  it("interrupts a busy loop when the turn's signal aborts", async () => {
    const controller = new AbortController();
    const ls = fakeLs(["x"]);
    const tool = evalTool({ limits: patient, allowlist: [ls], hasSubagents: false });
    const turn = fakeTurn();
    const pending = tool.execute(
      { code: "await tools.ls({ path: '/' }); for (;;) {}" },
      fakeContext({ turn, registry: [ls], signal: controller.signal }),
    );
    await waitFor(() => ls.count === 1, "the script to reach its loop");
    controller.abort();
    const result = await pending;
    expect(result.isError).toBe(true);
    expect(result.rawOutput).toMatchObject({ status: "cancelled" });
    expect(text(result)).toContain("Cancelled: execution interrupted");
    turn.end();
  });

  it("abandons a pending tool call when the signal aborts, and the late result goes nowhere", async () => {
    const controller = new AbortController();
    let release: () => void = () => undefined;
    const hanging: AnyTool = {
      ...fakeLs([]),
      name: "grep",
      async execute() {
        await new Promise<void>((resolve) => (release = resolve));
        return { content: [{ type: "text", text: "late" }] };
      },
    };
    const tool = evalTool({ limits: patient, allowlist: [hanging], hasSubagents: false });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry: [hanging], signal: controller.signal });
    const pending = tool.execute({ code: "globalThis.got = await tools.grep({ path: '/' }); 'finished'" }, ctx);
    await waitFor(() => ctx.calls.length === 1, "the tool call");
    controller.abort();
    const result = await pending;
    expect(result.rawOutput).toMatchObject({ status: "cancelled" });
    release();
    // Not a wait for something: a quiet period in which the released call could still finish the eval.
    await new Promise((resolve) => setTimeout(resolve, 10));
    const after = await tool.execute({ code: "typeof got" }, fakeContext({ turn, registry: [hanging] }));
    expect(text(after)).toBe("undefined");
    turn.end();
  });

  it("stops queued subagents when the eval is cancelled", async () => {
    const controller = new AbortController();
    let started = 0;
    const never = async (): Promise<ToolResult> => {
      started += 1;
      return new Promise<ToolResult>(() => undefined);
    };
    const tool = evalTool({ limits: patient });
    const turn = fakeTurn();
    const pending = tool.execute(
      {
        code: "await Promise.all(Array.from({ length: 50 }, (_, i) => task({ description: 'd' + i, subagentType: 't' })))",
      },
      fakeContext({ turn, runSubagent: never, signal: controller.signal }),
    );
    await waitFor(() => started === 32, "32 subagents to start");
    controller.abort();
    expect((await pending).rawOutput).toMatchObject({ status: "cancelled" });
    // Not a wait for something: a quiet period in which a queued subagent would start if cancelling let it.
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(started).toBe(32);
    turn.end();
  });

  it("interrupts an eval still running when the turn ends", async () => {
    const ls = fakeLs(["x"]);
    const tool = evalTool({ limits: patient, allowlist: [ls], hasSubagents: false });
    const turn = fakeTurn();
    const pending = tool.execute(
      { code: "await tools.ls({ path: '/' }); for (;;) {}" },
      fakeContext({ turn, registry: [ls] }),
    );
    await waitFor(() => ls.count === 1, "the script to reach its loop");
    turn.end();
    const result = await pending;
    expect(result.rawOutput).toMatchObject({ status: "cancelled" });
  });
});
