// A 20,000-word streamed answer: how long the agent takes to relay it to the editor, against the
// time the fake model itself needs to stream it to a bare HTTP client.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createFakeModelServer, textTurn } from "../test/support/fake-model/index.js";
import { median, ndjsonChild, round, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const WORDS = 20_000;

function answer(): string {
  const words: string[] = [];
  for (let i = 0; i < WORDS; i++) words.push(`word${i % 97}`);
  return words.join(" ");
}

/**
 * Two model speeds: "burst" (the fake model writes as fast as it can, so the agent's own processing
 * shows in full) and "paced" (1,000 chunks 2 ms apart, closer to a real model, where what matters is
 * whether the agent keeps up).
 */
export async function runStreamBench(runs = 7): Promise<BenchResult[]> {
  const burst = await streamOnce(runs + 4, {}, "burst");
  const paced = await streamOnce(Math.min(runs, 5), { wordsPerChunk: 20, chunkDelayMs: 2 }, "paced");
  return [...burst, ...paced];
}

async function streamOnce(
  runs: number,
  pacing: { wordsPerChunk?: number; chunkDelayMs?: number },
  label: string,
): Promise<BenchResult[]> {
  const text = answer();
  const model = await createFakeModelServer();
  model.setHandler(() => textTurn(text, pacing));
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-home-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  try {
    const agent = ndjsonChild(process.execPath, [BINARY], {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
    });
    agent.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await agent.next((m) => m.id === 1);
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
    const sessionId = (await agent.next((m) => m.id === 2)).result.sessionId;
    // Baseline and agent alternate, so a busy moment on the machine hits both alike.
    const direct: number[] = [];
    const relayed: number[] = [];
    const updateCounts: number[] = [];
    let received = "";
    for (let i = 0; i < runs + 1; i++) {
      let start = performance.now();
      const response = await fetch(`${model.anthropicBaseUrl}/v1/messages`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": "k", "anthropic-version": "2023-06-01" },
        body: JSON.stringify({
          model: "claude-sonnet-4-5",
          max_tokens: 1000,
          stream: true,
          messages: [{ role: "user", content: "talk" }],
        }),
      });
      const reader = response.body!.getReader();
      for (;;) if ((await reader.read()).done) break;
      const directMs = performance.now() - start;

      const before = agent.seen.length;
      const id = 10 + i;
      start = performance.now();
      agent.send({
        jsonrpc: "2.0",
        id,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "talk" }] },
      });
      await agent.next((m) => m.id === id);
      const ms = performance.now() - start;
      const updates = agent.seen
        .slice(before)
        .filter((m) => m.method === "session/update" && m.params.update.sessionUpdate === "agent_message_chunk");
      received = updates.map((m) => m.params.update.content.text).join("");
      if (i > 0) {
        direct.push(directMs);
        relayed.push(ms);
        updateCounts.push(updates.length);
      }
      // Keep the conversation from growing across runs: each run should measure one answer.
      agent.send({
        jsonrpc: "2.0",
        id: 1000 + i,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "/clear" }] },
      });
      await agent.next((m) => m.id === 1000 + i);
    }
    await agent.stop();
    if (received !== text) throw new Error("the relayed answer differs from the model's");
    const directMs = median(direct);
    const agentMs = median(relayed);
    const updates = median(updateCounts);
    return [
      {
        name: `stream.20k-words.${label}`,
        value: round(agentMs),
        unit: "ms",
        baseline: round(directMs),
        ratio: round(agentMs / directMs, 3),
        target: "overhead <= 5%",
        note: `overhead ${round((agentMs / directMs - 1) * 100, 1)}%`,
      },
      {
        name: `stream.updates-per-second.${label}`,
        value: round(updates / (agentMs / 1000)),
        unit: "updates/s",
        note: `${updates} agent_message_chunk updates for ${WORDS} words`,
      },
    ];
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
