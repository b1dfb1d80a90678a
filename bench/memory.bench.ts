// Memory figures through the built agent over stdio. RSS comes from /proc; the V8 heap after a full
// garbage collection from bench/heap-probe.mjs, preloaded into the agent (a measurement channel:
// SIGUSR2 -> gc() -> process.memoryUsage() written to a file).
// - 20 open idle sessions: RSS once 20 sessions have each answered one prompt and gone idle
//   (interpreter workers started by a turn exit after 30 s unused, so the reading waits that out),
//   and where it goes: V8 heap, off-heap (external), the rest (code, threads' stacks, allocator);
// - growth over 1,000 prompts in one session: the heap after GC every 100 prompts, fitted to a line,
//   as MB per 1,000 messages, next to what those messages weigh as JSON (what the history holds).
//   RSS is reported too but drifts with when V8 collects and returns memory.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createFakeModelServer, textTurn } from "../test/support/fake-model/index.js";
import { heapAfterGc, ndjsonChild, round, rssMb, sleep, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const IDLE_RELEASE_MS = 35_000;
const PROBE = resolve(import.meta.dirname, "heap-probe.mjs");

type MemoryUsage = { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };

type Agent = ReturnType<typeof ndjsonChild>;

function status(pid: number): { anon: number; file: number; threads: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(text)?.[1] ?? NaN);
  return { anon: field("RssAnon") / 1024, file: field("RssFile") / 1024, threads: field("Threads") };
}

async function request(agent: Agent, id: number, method: string, params: unknown): Promise<any> {
  agent.send({ jsonrpc: "2.0", id, method, params });
  const answer = await agent.next((m) => m.id === id && !m.method);
  // Only answers are looked up; dropping the rest keeps the bench's own memory and lookups flat.
  agent.seen.length = 0;
  agent.arrived.length = 0;
  if (answer.error) throw new Error(`${method} failed: ${JSON.stringify(answer.error)}`);
  return answer.result;
}

async function start(home: string, baseUrl: string) {
  const probeFile = join(home, "heap-probe.json");
  const agent = ndjsonChild(process.execPath, ["--expose-gc", "--import", PROBE, BINARY], {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: baseUrl,
    HEAP_PROBE_FILE: probeFile,
  });
  await request(agent, 1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  /** Memory after a full GC, in MB. */
  const heap = async (): Promise<MemoryUsage> => {
    const usage = await heapAfterGc(agent.child, probeFile);
    const mb = (n: number) => n / 1024 / 1024;
    return {
      rss: mb(usage.rss),
      heapTotal: mb(usage.heapTotal),
      heapUsed: mb(usage.heapUsed),
      external: mb(usage.external),
      arrayBuffers: mb(usage.arrayBuffers),
    };
  };
  return Object.assign(agent, { heap });
}

export async function runIdleSessions(count = 20): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-memory-"));
  const model = await createFakeModelServer();
  model.setHandler(() => textTurn("answer ".repeat(200)));
  try {
    const agent = await start(home, model.anthropicBaseUrl);
    for (let i = 0; i < count; i++) {
      const cwd = join(home, `project-${i}`);
      mkdirSync(cwd);
      const { sessionId } = await request(agent, 10 + 2 * i, "session/new", { cwd, mcpServers: [] });
      await request(agent, 11 + 2 * i, "session/prompt", { sessionId, prompt: [{ type: "text", text: `q ${i}` }] });
    }
    const busy = { rss: rssMb(agent.child.pid!), threads: status(agent.child.pid!).threads };
    await sleep(IDLE_RELEASE_MS);
    const pid = agent.child.pid!;
    const rss = rssMb(pid);
    const { anon, file, threads } = status(pid);
    const heap = await agent.heap();
    await agent.stop();
    return [
      {
        name: "memory.20-idle-sessions",
        value: round(rss),
        unit: "MB",
        target: "<= 90 MB",
        note: `RSS after ${count} sessions answered one prompt each and idled ${IDLE_RELEASE_MS / 1000} s: ${round(anon)} MB anonymous, ${round(file)} MB file-backed (code); V8 heap ${round(heap.heapUsed)} MB used of ${round(heap.heapTotal)} after GC, external ${round(heap.external)} MB (array buffers ${round(heap.arrayBuffers)}); ${threads} threads (just after the last prompt: ${round(busy.rss)} MB, ${busy.threads} threads)`,
      },
    ];
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

export async function runLongSession(prompts = 1000, every = 100): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-memory-"));
  const cwd = join(home, "project");
  mkdirSync(cwd);
  const model = await createFakeModelServer();
  const answer = (n: number) => `Answer ${n}: ${"a few words of reply ".repeat(5)}`.trim();
  model.setHandler((req) => textTurn(answer(Number(/\d+/.exec(req.lastUserText)?.[0] ?? 0))));
  try {
    const agent = await start(home, model.anthropicBaseUrl);
    const { sessionId } = await request(agent, 2, "session/new", { cwd, mcpServers: [] });
    const points: Array<{ messages: number; rss: number; anon: number; heap: number; committed: number }> = [];
    let historyJson = 0;
    for (let i = 1; i <= prompts; i++) {
      const text = `question ${i}: what next?`;
      await request(agent, 10 + i, "session/prompt", { sessionId, prompt: [{ type: "text", text }] });
      historyJson += JSON.stringify({ role: "user", content: [{ type: "text", text }] }).length;
      historyJson += JSON.stringify({ role: "assistant", content: [{ type: "text", text: answer(i) }] }).length;
      // The first stretch warms up (code loading, JIT); growth is measured after it.
      if (i % every === 0) {
        const pid = agent.child.pid!;
        const rss = rssMb(pid);
        const usage = await agent.heap();
        points.push({ messages: 2 * i, rss, anon: status(pid).anon, heap: usage.heapUsed, committed: usage.heapTotal });
      }
    }
    await agent.stop();
    const measured = points.slice(1);
    const messages = measured.map((p) => p.messages);
    const slope =
      fitSlope(
        messages,
        measured.map((p) => p.heap),
      ) * 1000;
    const rssSlope =
      fitSlope(
        messages,
        measured.map((p) => p.rss),
      ) * 1000;
    const jsonPerThousand = (historyJson / (2 * prompts) / 1024 / 1024) * 1000;
    return [
      {
        name: "memory.growth-per-1000-messages",
        value: round(slope, 2),
        unit: "MB",
        target: "history only",
        note: `V8 heap after GC over ${prompts} prompts in one session (${measured[0]!.messages}-${measured.at(-1)!.messages} messages: ${round(measured[0]!.heap)} -> ${round(measured.at(-1)!.heap)} MB); the messages themselves are ${round(jsonPerThousand, 2)} MB of JSON per 1,000; RSS ${round(measured[0]!.rss)} -> ${round(measured.at(-1)!.rss)} MB (${round(rssSlope, 2)} MB per 1,000 fitted; anonymous ${round(measured[0]!.anon)} -> ${round(measured.at(-1)!.anon)} MB; heap committed by V8 ${round(measured[0]!.committed)} -> ${round(measured.at(-1)!.committed)} MB)`,
      },
    ];
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
}

/** Least-squares slope of y over x. */
function fitSlope(x: number[], y: number[]): number {
  const n = x.length;
  const mx = x.reduce((a, b) => a + b, 0) / n;
  const my = y.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (x[i]! - mx) * (y[i]! - my);
    den += (x[i]! - mx) ** 2;
  }
  return num / den;
}

export async function runMemoryBench(): Promise<BenchResult[]> {
  return [...(await runIdleSessions()), ...(await runLongSession())];
}
