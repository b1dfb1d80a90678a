// MCP servers must not delay the editor: a session with three stdio MCP servers (server-filesystem,
// from the editor's session/new) is ready as fast as one with none, because servers connect in the
// background; the first prompt waits only for servers still starting. Fresh process per run, the two
// cases alternating; "first request" is prompt sent -> the model's request arriving, with all three
// servers' tools in it.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { renderAnthropic } from "../test/support/fake-model/render.js";
import { median, ndjsonChild, round, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const FILESYSTEM = resolve(
  import.meta.dirname,
  "../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
);

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

  async function once(mcpServers: unknown[]): Promise<{ ready: number; firstRequest: number; tools: number }> {
    const start = performance.now();
    const agent = ndjsonChild(process.execPath, [BINARY], env, project);
    agent.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await agent.next((m) => m.id === 1);
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers } });
    const sessionId = (await agent.next((m) => m.id === 2)).result.sessionId;
    const ready = performance.now() - start;
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
    return { ready, firstRequest, tools: tools.filter((t) => t.startsWith("fs_")).length };
  }

  try {
    await once([]);
    const none: Array<Awaited<ReturnType<typeof once>>> = [];
    const three: typeof none = [];
    for (let i = 0; i < runs; i++) {
      none.push(await once([]));
      three.push(await once(servers));
    }
    const readyNone = median(none.map((r) => r.ready));
    const readyThree = median(three.map((r) => r.ready));
    const firstNone = median(none.map((r) => r.firstRequest));
    const firstThree = median(three.map((r) => r.firstRequest));
    return [
      {
        name: "mcp.ready-3-servers",
        value: round(readyThree),
        unit: "ms",
        baseline: round(readyNone),
        ratio: round(readyThree / readyNone, 2),
        target: "<= 1x no servers",
        note: "spawn -> session/new answered; baseline: no servers",
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
