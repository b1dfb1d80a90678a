// The QuickJS interpreter: what one interpreter costs to create and run a trivial eval (on the
// calling thread, and in the warm worker sessions use), and programmatic tool calling: 256 `tools.readFile()` calls from one eval against the same 256
// read_file calls made directly, measured in the same run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTurnScope } from "../src/agent/turn-scope.js";
import { createFilesystemBackend } from "../src/backends/local/filesystem-backend.js";
import {
  createEvalTool,
  createSandbox,
  createWorkerSandboxFactory,
  resolveLimits,
  warmUp,
  type EngineHost,
} from "../src/interpreter/index.js";
import { createReadFileTool } from "../src/tools/files/read-file.js";
import type { ToolContext, ToolResult } from "../src/tools/types.js";
import { round, timed, type BenchResult } from "./lib.js";

const PTC_CALLS = 256;

const idleHost: EngineHost = {
  callTool: async () => {
    throw new Error("no tools in this benchmark");
  },
  runTask: async () => {
    throw new Error("no subagents in this benchmark");
  },
  isCancelled: () => false,
  onCancel: () => () => undefined,
};

function expectOutput(result: ToolResult, expected: string): void {
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  if (result.isError || text !== expected) throw new Error(`unexpected eval output: ${text}`);
}

export async function runInterpreterBench(runs = 15): Promise<BenchResult[]> {
  const limits = resolveLimits({ timeoutMs: 60_000 });
  const results: BenchResult[] = [];
  const workers = createWorkerSandboxFactory();
  const root = mkdtempSync(join(tmpdir(), "deep-acp-bench-interpreter-"));
  try {
    await warmUp();
    const inProcessMs = await timed(runs, async () => {
      const sandbox = await createSandbox({ limits });
      const outcome = await sandbox.run("1 + 1", idleHost);
      sandbox.dispose();
      if (outcome.output !== "2") throw new Error(`unexpected output ${outcome.output}`);
    });
    results.push({
      name: "interpreter.create+eval",
      value: round(inProcessMs),
      unit: "ms",
      note: "fresh 64 MB interpreter + `1 + 1`, calling thread",
    });

    await workers.prewarm(limits);
    const workerMs = await timed(runs, async () => {
      const sandbox = await workers.create({ limits });
      const outcome = await sandbox.run("1 + 1", idleHost);
      sandbox.dispose();
      if (outcome.output !== "2") throw new Error(`unexpected output ${outcome.output}`);
    });
    results.push({
      name: "interpreter.create+eval-worker",
      value: round(workerMs),
      unit: "ms",
      baseline: round(inProcessMs),
      ratio: round(workerMs / inProcessMs, 2),
      note: "as sessions run it: in the warm worker thread",
    });

    // 256 reads of one small file: through tools.readFile() in one eval vs read_file called directly.
    const file = join(root, "data.txt");
    writeFileSync(file, Array.from({ length: 40 }, (_, i) => `line ${i} ${"x".repeat(40)}`).join("\n"));
    const readFile = createReadFileTool();
    const backend = createFilesystemBackend({ rootDir: root });
    const context = (turn: ToolContext["turn"]): ToolContext => {
      const ctx: ToolContext = {
        sessionId: "bench",
        toolCallId: "eval-1",
        cwd: root,
        roots: [root],
        backend,
        signal: new AbortController().signal,
        limits: { shellTimeoutMs: 10_000, shellOutputChars: 30_000 },
        turn,
        progress: () => undefined,
        // The agent's pipeline minus approvals and editor events: validate, then execute.
        async callTool(name, input) {
          if (name !== "read_file") throw new Error(`unexpected tool ${name}`);
          const checked = readFile.validate(input);
          if (!checked.success) return { content: [{ type: "text", text: checked.error }], isError: true };
          return readFile.execute(checked.data, ctx);
        },
      };
      return ctx;
    };

    const direct = context(createTurnScope("direct"));
    const directMs = await timed(runs, async () => {
      for (let i = 0; i < PTC_CALLS; i++) {
        const checked = readFile.validate({ file_path: file });
        if (!checked.success) throw new Error(checked.error);
        const result = await readFile.execute(checked.data, direct);
        if (result.isError) throw new Error("direct read failed");
      }
    });

    const evalTool = createEvalTool({
      limits,
      allowlist: [readFile],
      mode: "default",
      hasSubagents: false,
      createSandbox: workers.create,
    });
    const code = `let chars = 0; for (let i = 0; i < ${PTC_CALLS}; i++) chars += (await tools.readFile({ file_path: ${JSON.stringify(file)} })).length; chars > 0 ? "ok" : "empty"`;
    // One turn (one interpreter) for all runs, warmed by a first eval, so only the calls are timed.
    const turn = createTurnScope("ptc");
    const ptcCtx = context(turn);
    expectOutput(await evalTool.execute({ code: "'ok'" }, ptcCtx), "ok");
    const ptcMs = await timed(runs, async () => expectOutput(await evalTool.execute({ code }, ptcCtx), "ok"));
    turn.end();
    results.push({
      name: `interpreter.ptc-${PTC_CALLS}-read_file`,
      value: round(ptcMs),
      unit: "ms",
      baseline: round(directMs),
      ratio: round(ptcMs / directMs, 2),
      note: `${PTC_CALLS} tools.readFile() in one eval vs ${PTC_CALLS} direct read_file calls`,
    });
    return results;
  } finally {
    await workers.shutdown();
    rmSync(root, { recursive: true, force: true });
  }
}

const invokedDirectly = process.argv[1]?.endsWith("interpreter.bench.ts");
if (invokedDirectly) {
  for (const result of await runInterpreterBench()) console.log(JSON.stringify(result));
}
