// Long-lived agent (part of `npm run bench -- robust`): CYCLES cycles of session/new with an MCP
// server (server-everything over stdio), a prompt whose model calls one of its tools, session/close
// and session/load, measured with every session closed after a warm-up and again at the end: open
// file descriptors, descendant processes, event-loop resources, and the V8 heap's objects after a
// full GC (compiled code apart, which grows as more gets optimised). test/robust/lifecycle.test.ts
// asserts the same on 500 cycles in the soak.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startAgentProcess } from "../test/support/agent-process.js";
import { createFakeModelServer } from "../test/support/fake-model/index.js";
import { HEAP_PROBE } from "../test/support/heap-probe.js";
import { closeAll, growth, lifecycleCycle, lifecycleModel, settledProbe } from "../test/robust/lifecycle.js";
import { round, type BenchResult } from "./lib.js";

const WARMUP = 20;

export async function runLifecycleBench(cycles = 200): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-lifecycle-"));
  const project = join(home, "project");
  mkdirSync(project);
  mkdirSync(join(home, ".deepagents"));
  writeFileSync(join(home, ".deepagents", "config.toml"), "[acp]\nmax_loaded_sessions = 2\n");
  const probeFile = join(home, "probe.json");
  const model = await createFakeModelServer({ handler: lifecycleModel });
  const agent = await startAgentProcess({
    nodeArgs: ["--expose-gc", "--import", HEAP_PROBE],
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl, HEAP_PROBE_FILE: probeFile },
  });
  try {
    await agent.initialize();
    const ids: string[] = [];
    for (let i = 0; i < WARMUP; i++) ids.push(await lifecycleCycle(agent, project, i));
    await closeAll(agent, ids);
    const before = await settledProbe(agent, probeFile);
    const start = performance.now();
    for (let i = WARMUP; i < WARMUP + cycles; i++) ids.push(await lifecycleCycle(agent, project, i));
    const perCycle = (performance.now() - start) / cycles;
    await closeAll(agent, ids);
    const after = await settledProbe(agent, probeFile);
    const grew = growth(before, after);
    const handles = Object.values(grew.resources).reduce((sum, n) => sum + n, 0);
    const note = `${cycles} cycles after ${WARMUP} (${round(perCycle)} ms each), every session closed at both ends`;
    return [
      {
        name: "robust.lifecycle-fds",
        value: grew.fds,
        unit: "fds",
        target: "0",
        note: `${before.fds} -> ${after.fds}; ${note}`,
      },
      {
        name: "robust.lifecycle-children",
        value: grew.children,
        unit: "processes",
        target: "0",
        note: `${before.children} -> ${after.children} descendants`,
      },
      {
        name: "robust.lifecycle-handles",
        value: handles,
        unit: "handles",
        target: "0",
        note: `${JSON.stringify(before.resources)} -> ${JSON.stringify(after.resources)}`,
      },
      {
        name: "robust.lifecycle-heap",
        value: round((grew.objectsMb * 1024) / cycles, 1),
        unit: "KB/cycle",
        target: "the stored sessions' listing only (a few KB)",
        note: `V8 heap objects after GC ${round(before.objectsMb)} -> ${round(after.objectsMb)} MB; compiled code ${round(before.heapUsedMb - before.objectsMb)} -> ${round(after.heapUsedMb - after.objectsMb)} MB; RSS ${round(before.rssMb)} -> ${round(after.rssMb)} MB`,
      },
    ];
  } finally {
    await agent.stop();
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}
