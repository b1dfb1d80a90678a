// Robustness figures through the built agent over stdio (and lifecycle.bench.ts):
// - session/list latency with 1,000 stored sessions while 10 prompts stream (target p99 < 100 ms);
// - resident memory per idle live session (target < 2 MB), from RSS before and after opening them,
//   with the V8 heap after a full GC next to it (bench/heap-probe.mjs), which does not depend on when
//   V8 happens to collect: the RSS delta of a few MB is within that timing's noise.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createSessionStore } from "../src/transcript/store/index.js";
import { createFakeModelServer, textTurn } from "../test/support/fake-model/index.js";
import { runLifecycleBench } from "./lifecycle.bench.js";
import { heapAfterGc, round, rssMb, sleep, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const IDLE_RELEASE_MS = 35_000;
const HEAP_PROBE = resolve(import.meta.dirname, "heap-probe.mjs");

/** A raw ACP client: requests by id, everything else counted. */
export function rawAgent(env: NodeJS.ProcessEnv, args: string[] = [], nodeArgs: string[] = []) {
  const child = spawn(process.execPath, ["--expose-gc", ...nodeArgs, BINARY, ...args], {
    env,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const pending = new Map<number, (message: any) => void>();
  let buffer = "";
  let nextId = 1;
  let notifications = 0;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const message = JSON.parse(buffer.slice(0, nl));
      buffer = buffer.slice(nl + 1);
      if (message.method) notifications++;
      else pending.get(message.id)?.(message);
    }
  });
  const exited = new Promise<void>((done) => child.on("exit", () => done()));
  return {
    child,
    get notifications() {
      return notifications;
    },
    request(method: string, params: unknown): Promise<any> {
      const id = nextId++;
      return new Promise((done) => {
        pending.set(id, done);
        child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
      });
    },
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Nearest-rank percentile: p99 of 100 samples is the 99th smallest (of 20, the largest). */
const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.max(0, Math.ceil((values.length * p) / 100) - 1)]!;

async function storeSessions(home: string, count: number, cwd: string): Promise<void> {
  const store = createSessionStore({ dir: join(home, ".deepagents", "sessions") });
  for (let i = 0; i < count; i++) {
    const id = `stored-${String(i).padStart(5, "0")}`;
    await store.create({ id, cwd, title: `Stored ${i}` });
    for (let r = 0; r < 6; r++)
      await store.append(id, { t: "text", mid: `m${r}`, text: `reply ${r} of session ${i}` } as never);
  }
  await store.list();
  await store.flush(); // writes index.json, as an earlier agent process would have
}

export async function runListUnderLoad(sessions = 1000, streams = 10, samples = 100): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-robust-"));
  const project = join(home, "project");
  mkdirSync(project);
  const model = await createFakeModelServer();
  try {
    await storeSessions(home, sessions, project);
    const agent = rawAgent({
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    });
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const idle: number[] = [];
    for (let i = 0; i < 20; i++) {
      const start = performance.now();
      await agent.request("session/list", {});
      idle.push(performance.now() - start);
    }
    const ids: string[] = [];
    for (let i = 0; i < streams; i++)
      ids.push((await agent.request("session/new", { cwd: project, mcpServers: [] })).result.sessionId);
    // Long answers in small, paced chunks: the prompts keep streaming for the whole measurement.
    for (let i = 0; i < streams; i++)
      model.enqueue(textTurn("word ".repeat(20_000), { wordsPerChunk: 2, chunkDelayMs: 2 }));
    const prompts = ids.map((sessionId) =>
      agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] }),
    );
    while (agent.notifications < streams * 20) await sleep(10);
    const loaded: number[] = [];
    for (let i = 0; i < samples; i++) {
      const start = performance.now();
      const page = await agent.request("session/list", {});
      loaded.push(performance.now() - start);
      if (process.env.BENCH_TRACE)
        console.error(`list ${i} ${round(performance.now() - start)} ms notif=${agent.notifications}`);
      if (!page.result) throw new Error(`session/list failed: ${JSON.stringify(page.error)}`);
      await sleep(5);
    }
    const streamed = agent.notifications;
    for (const sessionId of ids)
      agent.child.stdin.write(
        `${JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId } })}\n`,
      );
    await Promise.all(prompts);
    await agent.stop();
    const note = `${sessions} stored, ${streams} prompts streaming (${streamed} updates during the run), load average ${round(loadavg()[0]!)}`;
    return [
      {
        name: "robust.list-idle-p99",
        value: round(percentile(idle, 99)),
        unit: "ms",
        note: `${sessions} stored, nothing else running`,
      },
      { name: "robust.list-under-load-p50", value: round(percentile(loaded, 50)), unit: "ms", note },
      {
        name: "robust.list-under-load-p99",
        value: round(percentile(loaded, 99)),
        unit: "ms",
        target: "< 100 ms",
        note,
      },
    ];
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function runIdleSessionMemory(count = 40): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-robust-"));
  const probeFile = join(home, "heap-probe.json");
  const model = await createFakeModelServer();
  try {
    const agent = rawAgent(
      {
        PATH: process.env.PATH,
        HOME: home,
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
        HEAP_PROBE_FILE: probeFile,
      },
      [],
      ["--import", HEAP_PROBE],
    );
    await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} });
    const projects = Array.from({ length: count + 1 }, (_, i) => {
      const dir = join(home, `project-${i}`);
      mkdirSync(dir);
      return dir;
    });
    // One session first, so the session layer's code is loaded before the baseline.
    const first = (await agent.request("session/new", { cwd: projects[0], mcpServers: [] })).result.sessionId;
    model.enqueue(textTurn("warm"));
    await agent.request("session/prompt", { sessionId: first, prompt: [{ type: "text", text: "hi" }] });
    await sleep(1500);
    // RSS first: the heap probe's full GC would lower it.
    const before = rssMb(agent.child.pid!);
    const heapBefore = (await heapAfterGc(agent.child, probeFile)).heapUsed / 1024 / 1024;
    for (let i = 1; i <= count; i++) {
      const sessionId = (await agent.request("session/new", { cwd: projects[i], mcpServers: [] })).result.sessionId;
      model.enqueue(textTurn(`answer ${i} `.repeat(200)));
      await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `question ${i}` }] });
    }
    // Idle means idle: interpreter workers started by the turns exit after 30 s without use.
    await sleep(IDLE_RELEASE_MS);
    const after = rssMb(agent.child.pid!);
    const heapAfter = (await heapAfterGc(agent.child, probeFile)).heapUsed / 1024 / 1024;
    await agent.stop();
    return [
      {
        name: "robust.idle-session-memory",
        value: round((after - before) / count, 2),
        unit: "MB/session",
        target: "< 2 MB",
        note: `${count} sessions, one turn each, RSS ${round(before)} -> ${round(after)} MB; V8 heap after GC ${round(heapBefore)} -> ${round(heapAfter)} MB (${round(((heapAfter - heapBefore) * 1024) / count)} KB/session)`,
      },
    ];
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function runRobustBench(): Promise<BenchResult[]> {
  return [...(await runListUnderLoad()), ...(await runIdleSessionMemory()), ...(await runLifecycleBench())];
}
