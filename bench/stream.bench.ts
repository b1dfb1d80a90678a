// A 20,000-word streamed answer relayed to the editor, measured against two floors run side by side
// on the same fake model server, all three driven by the same ACP prompt line:
// - the thinnest streaming agent (bench/thin-agent.mjs): fetch, SSE parse, JSON.parse of each event,
//   one agent_message_chunk line per delta. Compared by the process CPU time (all threads, from
//   /proc) each spends on one prompt: the "CPU to relay a 20,000-word stream".
// - a raw fetch-and-parse of the same SSE (the same script writing nothing per delta). Compared by
//   wall time from the prompt line to its answer: the "whole-answer burst".
// Two model speeds: "burst" (the fake model writes as fast as it can, 64 KiB per write, so the
// agent's own processing shows in full) and "paced" (1,000 chunks 2 ms apart, closer to a real model).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createFakeModelServer, textTurn } from "../test/support/fake-model/index.js";
import { cpuMs, median, ndjsonChild, round, sleep, spread, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const THIN_AGENT = resolve(import.meta.dirname, "thin-agent.mjs");
const WORDS = 20_000;
/** After each answer, CPU is read this much later, so work a process does after answering counts too. */
const SETTLE_MS = 100;
/**
 * Runs not measured, per process: the agent has far more code for V8 to optimise than the thin
 * script, and its first streams run partly unoptimised (the first costs about 3x a later one). A
 * session relays many answers; the figures are for the later ones.
 */
const WARM_UP_RUNS = 3;

export function twentyThousandWords(): string {
  const words: string[] = [];
  for (let i = 0; i < WORDS; i++) words.push(`word${i % 97}`);
  return words.join(" ");
}

export async function runStreamBench(runs = 7): Promise<BenchResult[]> {
  const burst = await streamOnce(runs + 4, {}, "burst");
  // Nine paced answers (2 s each per agent): the median of five swung by 10-15% between runs.
  const paced = await streamOnce(runs + 2, { wordsPerChunk: 20, chunkDelayMs: 2 }, "paced");
  return [...burst, ...paced];
}

type Child = ReturnType<typeof ndjsonChild>;
type Sample = { ms: number; cpu: number; text: string; updates: number };

/** One prompt on one child: wall time to its answer, CPU used until shortly after, the text relayed. */
async function measure(child: Child, id: number, sessionId: string): Promise<Sample> {
  child.seen.length = 0;
  child.arrived.length = 0;
  const pid = child.child.pid!;
  const cpuBefore = cpuMs(pid);
  const start = performance.now();
  child.send({
    jsonrpc: "2.0",
    id,
    method: "session/prompt",
    params: { sessionId, prompt: [{ type: "text", text: "talk" }] },
  });
  const answer = await child.next((m) => m.id === id && !m.method);
  const ms = performance.now() - start;
  await sleep(SETTLE_MS);
  const cpu = cpuMs(pid) - cpuBefore;
  if (answer.result?.stopReason !== "end_turn") throw new Error(`prompt failed: ${JSON.stringify(answer)}`);
  const chunks = child.seen.filter(
    (m) => m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk",
  );
  return { ms, cpu, text: chunks.map((m) => m.params.update.content.text).join(""), updates: chunks.length };
}

async function streamOnce(
  runs: number,
  pacing: { wordsPerChunk?: number; chunkDelayMs?: number },
  label: string,
): Promise<BenchResult[]> {
  const text = twentyThousandWords();
  const model = await createFakeModelServer();
  model.setHandler(() => textTurn(text, pacing));
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-home-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  const thin = (mode: string) =>
    ndjsonChild(process.execPath, [THIN_AGENT], {
      PATH: process.env.PATH,
      THIN_AGENT_BASE_URL: model.anthropicBaseUrl,
      THIN_AGENT_MODE: mode,
    });
  const relay = thin("relay");
  const parse = thin("parse");
  const agent = ndjsonChild(process.execPath, [BINARY], {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
  });
  try {
    agent.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await agent.next((m) => m.id === 1);
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
    const sessionId = (await agent.next((m) => m.id === 2)).result.sessionId;
    const ours: Sample[] = [];
    const thinRelay: Sample[] = [];
    const fetchParse: Sample[] = [];
    // The three take turns in a rotating order, so a busy moment on the machine hits each alike.
    for (let i = 0; i < runs + WARM_UP_RUNS; i++) {
      const id = 10 + i;
      const steps = [
        async () => fetchParse.push(await measure(parse, id, "thin")),
        async () => thinRelay.push(await measure(relay, id, "thin")),
        async () => {
          const requests = model.requests.length;
          const sample = await measure(agent, id, sessionId);
          if (model.requests.length !== requests + 1) throw new Error("the agent made more than one model request");
          if (sample.text !== text) throw new Error("the relayed answer differs from the model's");
          ours.push(sample);
          // Keep the conversation from growing across runs: each run should measure one answer.
          agent.send({
            jsonrpc: "2.0",
            id: 1000 + i,
            method: "session/prompt",
            params: { sessionId, prompt: [{ type: "text", text: "/clear" }] },
          });
          await agent.next((m) => m.id === 1000 + i);
        },
      ];
      for (let s = 0; s < steps.length; s++) await steps[(s + i) % steps.length]!();
    }
    if (thinRelay.some((s) => s.text !== text)) throw new Error("the thin agent's relayed answer differs");
    for (const list of [ours, thinRelay, fetchParse]) list.splice(0, WARM_UP_RUNS);
    const cpuRatios = ours.map((s, i) => s.cpu / thinRelay[i]!.cpu);
    const wallRatios = ours.map((s, i) => s.ms / fetchParse[i]!.ms);
    const agentMs = median(ours.map((s) => s.ms));
    const agentCpu = median(ours.map((s) => s.cpu));
    const updates = median(ours.map((s) => s.updates));
    return [
      {
        name: `stream.cpu.${label}`,
        value: round(agentCpu),
        unit: "ms CPU",
        baseline: round(median(thinRelay.map((s) => s.cpu))),
        ratio: round(median(cpuRatios), 2),
        target: "<= 1.3x",
        note: `process CPU (user+sys, all threads) per prompt vs the thinnest streaming agent; ratio spread ${spread(cpuRatios, 2)}x over ${ours.length} runs`,
      },
      {
        name: `stream.20k-words.${label}`,
        value: round(agentMs),
        unit: "ms",
        baseline: round(median(fetchParse.map((s) => s.ms))),
        ratio: round(median(wallRatios), 2),
        target: label === "burst" ? "<= 1.5x" : "overhead <= 5%",
        note: `prompt line -> answer vs a raw fetch + SSE parse + JSON.parse of each event; ratio spread ${spread(wallRatios, 2)}x`,
      },
      {
        name: `stream.updates-per-second.${label}`,
        value: round(updates / (agentMs / 1000)),
        unit: "updates/s",
        note: `${updates} agent_message_chunk updates for ${WORDS} words (the thin agent: ${median(thinRelay.map((s) => s.updates))})`,
      },
    ];
  } finally {
    await Promise.all([agent.stop(), relay.stop(), parse.stop()]);
    await model.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
