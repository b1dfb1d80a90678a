// MCP servers must not delay the editor: a session with three stdio MCP servers (server-filesystem,
// from the editor's session/new) is ready as fast as one with none, because servers connect in the
// background; the first prompt waits only for servers still starting. Fresh process per run, the two
// cases alternating, each run after the last one's processes (the MCP servers too) have had time to
// exit; "ready" is the median of the paired ratios (both cases take the same code path to that answer,
// so only noise separates them, and pairing cancels the machine's slower moments; a sign test tells
// whether the servers made it slower in more pairs than chance explains). "First request" is
// prompt sent -> the model's request arriving, with all three servers' tools in it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { renderAnthropic } from "../test/support/fake-model/render.js";
import { median, ndjsonChild, round, sleep, spread, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const SETTLE_MS = 300;
const READY_ONLY_PAIRS = 16;
const FILESYSTEM = resolve(
  import.meta.dirname,
  "../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

/**
 * "As fast as" is a claim of equality, and equal timings land on either side of 1x by chance: a sign
 * test says whether the servers made ready slower in more pairs than chance explains.
 */
function slowerInPairs(ratios: number[]): string {
  const n = ratios.length;
  const slower = ratios.filter((r) => r > 1).length;
  // One-sided binomial tail P(X >= slower) for X ~ Bin(n, 1/2).
  let tail = 0;
  for (let k = slower; k <= n; k++) tail += binomial(n, k) / 2 ** n;
  const verdict = tail < 0.05 ? "slower than chance explains" : "no slower than chance explains";
  return `with servers slower in ${slower} of ${n} pairs (sign test p = ${round(tail, 2)}: ${verdict})`;
}

function binomial(n: number, k: number): number {
  let result = 1;
  for (let i = 1; i <= k; i++) result = (result * (n - k + i)) / i;
  return result;
}

export async function runMcpBench(runs = 5): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-home-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  let onRequest: (tools: string[]) => void = () => undefined;
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      onRequest(((JSON.parse(body).tools ?? []) as Array<{ name: string }>).map((t) => t.name));
      const rendered = renderAnthropic(
        { parts: [{ type: "text", text: "ok" }] },
        { model: "m", requestBytes: body.length, includeUsage: false, sequence: 1 },
      );
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end([...rendered.parts, ...rendered.tail].join(""));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  };
  const servers = ["fs_a", "fs_b", "fs_c"].map((name) => ({
    name,
    command: process.execPath,
    args: [FILESYSTEM, project],
    env: [],
  }));

  async function once(
    mcpServers: unknown[],
    prompt: boolean,
  ): Promise<{ ready: number; firstRequest: number; tools: number }> {
    const start = performance.now();
    const agent = ndjsonChild(process.execPath, [BINARY], env, project);
    agent.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await agent.next((m) => m.id === 1);
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers } });
    const sessionId = (await agent.next((m) => m.id === 2)).result.sessionId;
    const ready = performance.now() - start;
    if (!prompt) {
      await agent.stop();
      await sleep(SETTLE_MS);
      return { ready, firstRequest: 0, tools: 0 };
    }
    const requested = new Promise<string[]>((resolve) => (onRequest = resolve));
    const sent = performance.now();
    agent.send({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "hi" }] },
    });
    const tools = await requested;
    const firstRequest = performance.now() - sent;
    await agent.next((m) => m.id === 3);
    await agent.stop();
    // The MCP servers exit on their own once the agent is gone; let them, so they do not slow the next run.
    await sleep(SETTLE_MS);
    return { ready, firstRequest, tools: tools.filter((t) => t.startsWith("fs_")).length };
  }

  try {
    await once([], true);
    const none: Array<Awaited<ReturnType<typeof once>>> = [];
    const three: typeof none = [];
    for (let i = 0; i < runs; i++) {
      none.push(await once([], true));
      three.push(await once(servers, true));
    }
    // More spawns for "ready" alone (cheap: no prompt), in both orders, so its median is steady.
    const readyRatios = three.map((r, i) => r.ready / none[i]!.ready);
    const readyNoneAll = none.map((r) => r.ready);
    const readyThreeAll = three.map((r) => r.ready);
    for (let i = 0; i < READY_ONLY_PAIRS; i++) {
      const first = await once(i % 2 === 0 ? [] : servers, false);
      const second = await once(i % 2 === 0 ? servers : [], false);
      const [withNone, withThree] = i % 2 === 0 ? [first, second] : [second, first];
      readyNoneAll.push(withNone.ready);
      readyThreeAll.push(withThree.ready);
      readyRatios.push(withThree.ready / withNone.ready);
    }
    const readyNone = median(readyNoneAll);
    const readyThree = median(readyThreeAll);
    const firstNone = median(none.map((r) => r.firstRequest));
    const firstThree = median(three.map((r) => r.firstRequest));
    return [
      {
        name: "mcp.ready-3-servers",
        value: round(readyThree),
        unit: "ms",
        baseline: round(readyNone),
        ratio: round(median(readyRatios), 2),
        target: "<= 1x (sign test)",
        note: `spawn -> session/new answered; baseline: no servers; paired ratio spread ${spread(readyRatios, 2)}x; ${slowerInPairs(readyRatios)}`,
      },
      {
        name: "mcp.first-request-3-servers",
        value: round(firstThree),
        unit: "ms",
        baseline: round(firstNone),
        ratio: round(firstThree / firstNone, 2),
        note: `prompt -> model request (waits for servers still starting); ${three[0]!.tools} MCP tools offered`,
      },
    ];
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
