import { afterAll, describe, expect, it } from "vitest";
import { createEvalTool as createDefaultEvalTool, type EvalToolOptions } from "../../../src/interpreter/eval-tool.js";
import { resolveLimits } from "../../../src/interpreter/quickjs/limits.js";
import { createWorkerSandboxFactory } from "../../../src/interpreter/worker/worker-client.js";
import { fakeContext, fakeLs, fakeReadFile, fakeTurn, fakeWriteFile, text } from "./helpers.js";

const limits = resolveLimits({ timeoutMs: 2000 });
// One worker for the file (starting one from TypeScript sources is slow); the first test below
// uses the tool's own default worker.
const workers = createWorkerSandboxFactory();
afterAll(() => workers.shutdown());
const createEvalTool = (options: EvalToolOptions) =>
  createDefaultEvalTool({ createSandbox: workers.create, ...options });

describe("eval tool definition", () => {
  it("is named eval with hook name Eval and takes {code}", () => {
    const tool = createEvalTool({ limits, allowlist: [], mode: "default", hasSubagents: false });
    expect(tool).toMatchObject({ name: "eval", hookName: "Eval", kind: "other" });
    expect(tool.jsonSchema).toMatchObject({
      type: "object",
      properties: { code: { type: "string" } },
      required: ["code"],
    });
    expect(tool.validate({}).success).toBe(false);
    expect(tool.validate({ code: "1" })).toEqual({ success: true, data: { code: "1" } });
  });

  it("starts the engine of the session's factory when the model starts writing a call (warmUp)", () => {
    let prewarmed = 0;
    const tool = createEvalTool({
      limits,
      allowlist: [],
      mode: "default",
      hasSubagents: false,
      prewarm: () => void (prewarmed += 1),
    });
    expect(prewarmed).toBe(0); // creating the tool (every turn does) starts nothing
    tool.warmUp?.();
    expect(prewarmed).toBe(1);
  });

  it("needs no approval with a read-only allowlist and asks with a write tool in it", () => {
    const readOnly = createEvalTool({
      limits,
      allowlist: [fakeReadFile({}), fakeLs([])],
      mode: "default",
      hasSubagents: true,
    });
    expect(readOnly.effect).toBe("none");
    const writing = createEvalTool({
      limits,
      allowlist: [fakeReadFile({}), fakeWriteFile({})],
      mode: "default",
      hasSubagents: false,
    });
    expect(writing.effect).toBe("external");
    const planMode = createEvalTool({
      limits,
      allowlist: [fakeReadFile({}), fakeWriteFile({})],
      mode: "plan",
      hasSubagents: false,
    });
    expect(planMode.effect).toBe("none");
  });

  it("titles the call with the first line of code and previews the whole code", async () => {
    const tool = createEvalTool({ limits, allowlist: [], mode: "default", hasSubagents: false });
    const code = "\nconst files = await tools.glob({ pattern: '**/*.ts' })\nfiles.length";
    expect(tool.present({ code }, { cwd: "/project", roots: ["/project"] }).title).toBe(
      "eval: const files = await tools.glob({ pattern: '**/*.ts' }) …",
    );
    const ctx = fakeContext({ turn: fakeTurn() });
    const preview = await tool.preview!({ code }, ctx);
    expect(preview).toEqual([{ type: "text", text: "```js\n" + code + "\n```" }]);
  });
});

describe("state", () => {
  it("keeps globals across eval calls within a turn and starts fresh in the next turn", async () => {
    const tool = createDefaultEvalTool({ limits, allowlist: [], mode: "default", hasSubagents: false });
    const turn1 = fakeTurn("t1");
    const ctx1 = fakeContext({ turn: turn1 });
    await tool.execute(
      { code: "const counter = 41\nfunction bump() { return counter + 1 }\nclass Box { v = 7 }" },
      ctx1,
    );
    const second = await tool.execute({ code: "[bump(), new Box().v, counter].join(' ')" }, ctx1);
    expect(text(second)).toBe("42 7 41");
    const redeclared = await tool.execute({ code: "const counter = 1; class Box {}; counter" }, ctx1);
    expect(text(redeclared)).toBe("1");

    turn1.end();
    const turn2 = fakeTurn("t2");
    const third = await tool.execute(
      { code: "typeof counter + ' ' + typeof bump + ' ' + typeof Box" },
      fakeContext({ turn: turn2 }),
    );
    expect(text(third)).toBe("undefined undefined undefined");
    turn2.end();
  });

  it("gives the next eval of the turn a fresh interpreter after one ran out of memory", async () => {
    const tool = createEvalTool({
      limits: resolveLimits({ timeoutMs: 20_000 }),
      allowlist: [],
      mode: "default",
      hasSubagents: false,
    });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn });
    await tool.execute({ code: "globalThis.before = 'set'" }, ctx);
    const oom = await tool.execute({ code: "globalThis.hog = []; for (;;) hog.push({ n: hog.length })" }, ctx);
    expect(oom.isError).toBe(true);
    expect(oom.rawOutput).toMatchObject({ status: "out_of_memory", interpreterReset: true });
    const after = await tool.execute({ code: "typeof before + ' ' + (1 + 1)" }, ctx);
    expect(text(after)).toBe("undefined 2");
    turn.end();
  });
});

describe("programmatic tool calling", () => {
  const files = { "/project/a.txt": "alpha\nbeta", "/project/b.txt": "\t1\tstarts with a tab" };

  it("exposes allowlisted tools as camelCase functions returning flattened text", async () => {
    const ls = fakeLs(["/project/a.txt", "/project/b.txt"]);
    const registry = [fakeReadFile(files), ls];
    const tool = createEvalTool({ limits, allowlist: registry, mode: "default", hasSubagents: false });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry });
    const result = await tool.execute(
      {
        code: [
          "const names = (await tools.ls({ path: '/project' })).split('\\n')",
          "const contents = await Promise.all(names.map((p) => tools.readFile({ file_path: p })))",
          "JSON.stringify(contents)",
        ].join("\n"),
      },
      ctx,
    );
    expect(result.isError).toBe(false);
    expect(JSON.parse(text(result))).toEqual(["alpha\nbeta", "\t1\tstarts with a tab"]);
    expect(ctx.calls.map((c) => c.name)).toEqual(["ls", "read_file", "read_file"]);
    expect(ctx.calls[1]!.input).toEqual({ file_path: "/project/a.txt" });
    expect(result.rawOutput).toMatchObject({ toolCalls: 3 });
    turn.end();
  });

  it("validates input against the tool's schema before calling it", async () => {
    const registry = [fakeReadFile(files)];
    const tool = createEvalTool({ limits, allowlist: registry, mode: "default", hasSubagents: false });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry });
    const result = await tool.execute({ code: "await tools.readFile({ path: '/project/a.txt' })" }, ctx);
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^TypeError: Tool 'read_file' failed: invalid input for tools\.readFile: .*file_path/s,
    );
    expect(ctx.calls).toEqual([]);
    turn.end();
  });

  it("rejects with Tool '<name>' failed: ... when the tool reports an error, catchable by the script", async () => {
    const registry = [fakeReadFile(files)];
    const tool = createEvalTool({ limits, allowlist: registry, mode: "default", hasSubagents: false });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry });
    const result = await tool.execute(
      { code: "try { await tools.readFile({ file_path: '/missing' }) } catch (e) { 'caught: ' + e.message }" },
      ctx,
    );
    expect(text(result)).toBe("caught: Tool 'read_file' failed: Error: file not found: /missing");
    turn.end();
  });

  it("obeys deny decisions of the agent pipeline", async () => {
    const registry = [fakeReadFile(files)];
    const tool = createEvalTool({ limits, allowlist: registry, mode: "default", hasSubagents: false });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry, deny: ["read_file"] });
    const result = await tool.execute({ code: "await tools.readFile({ file_path: '/project/a.txt' })" }, ctx);
    expect(text(result)).toContain("Tool 'read_file' failed: Permission denied");
    turn.end();
  });

  it("fails clearly past the per-eval call budget and resets the budget for the next eval", async () => {
    const ls = fakeLs(["x"]);
    const tool = createEvalTool({
      limits: resolveLimits({ maxToolCalls: 5 }),
      allowlist: [ls],
      mode: "default",
      hasSubagents: false,
    });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry: [ls] });
    const result = await tool.execute({ code: "for (let i = 0; i < 10; i++) await tools.ls({ path: '/' })" }, ctx);
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("PTC call budget exceeded (limit=5, attempted=6, function=ls)");
    expect(ls.count).toBe(5);
    const next = await tool.execute({ code: "await tools.ls({ path: '/' })" }, ctx);
    expect(text(next)).toBe("x");
    turn.end();
  });

  it("only exposes allowlisted tools", async () => {
    const written: Record<string, string> = {};
    const registry = [fakeReadFile(files), fakeWriteFile(written)];
    const tool = createEvalTool({ limits, allowlist: [registry[0]!], mode: "default", hasSubagents: false });
    const turn = fakeTurn();
    const ctx = fakeContext({ turn, registry });
    const keys = await tool.execute(
      { code: "Object.keys(tools).join(',') + ' ' + typeof tools.writeFile + ' ' + typeof tools.read_file" },
      ctx,
    );
    expect(text(keys)).toBe("readFile undefined function");
    const attempt = await tool.execute({ code: "await tools.writeFile({ file_path: '/x', content: 'y' })" }, ctx);
    expect(attempt.isError).toBe(true);
    expect(written).toEqual({});
    expect(ctx.calls).toEqual([]);
    turn.end();
  });

  it("drops write tools from the allowlist in read-only mode", async () => {
    const written: Record<string, string> = {};
    const registry = [fakeReadFile(files), fakeWriteFile(written)];
    const tool = createEvalTool({ limits, allowlist: registry, mode: "plan", hasSubagents: false });
    const turn = fakeTurn();
    const result = await tool.execute({ code: "Object.keys(tools).join(',')" }, fakeContext({ turn, registry }));
    expect(text(result)).toBe("readFile");
    turn.end();
  });

  it("does not let code replace the tools namespace", async () => {
    const registry = [fakeReadFile(files)];
    const tool = createEvalTool({ limits, allowlist: registry, mode: "default", hasSubagents: false });
    const turn = fakeTurn();
    const result = await tool.execute(
      {
        code: "tools.readFile = () => 'fake'; globalThis.tools = {}; await tools.readFile({ file_path: '/project/a.txt' })",
      },
      fakeContext({ turn, registry }),
    );
    expect(text(result)).toBe("alpha\nbeta");
    turn.end();
  });
});
