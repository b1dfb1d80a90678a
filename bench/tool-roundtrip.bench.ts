// Tool round trip: the agent's own time between the model finishing a tool call (the last byte of
// its streamed answer handed to the socket) and the next model request arriving, for read_file on a
// small file, excluding the tool's run time. The gap includes loopback HTTP both ways and the agent's
// work: parsing the end of the stream, the gate's decision, the tool_call notifications, recording
// the transcript and building the next request. The tool's run time is measured on its own, in this
// process: read_file's execute() on the same file over a real filesystem backend, warmed like the
// agent, and its median subtracted from each gap. (What the editor sees, `in_progress` to
// `completed`, is reported next to it; it also holds the transcript writes of both updates.) The floor is a bare
// Node process that, once a response has ended, sends the next request at once (fetch both ways),
// measured the same way in the same run, before and after the agent.
import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { renderAnthropic } from "../test/support/fake-model/render.js";
import { createReadFileTool } from "../src/tools/files/read-file.js";
import { toolContext } from "../test/unit/tools/tool-context.js";
import { median, ndjsonChild, round, spread, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");

/** Median run time of read_file's execute() on `file`, after as many warm-up runs. */
async function timeRead(root: string, file: string, runs: number): Promise<number> {
  const tool = createReadFileTool();
  // The unit tests' real context (local files, local shell); no progress is recorded in the bench.
  const context = toolContext(root, { sessionId: "bench", toolCallId: "bench", progress: () => undefined });
  const times: number[] = [];
  for (let i = 0; i < runs * 2; i++) {
    const start = performance.now();
    const parsed = tool.validate({ file_path: file });
    if (!parsed.success) throw new Error(parsed.error);
    const result = await tool.execute(parsed.data, context);
    if (result.isError) throw new Error("read_file failed in the bench");
    if (i >= runs) times.push(performance.now() - start);
  }
  return median(times);
}

export async function runToolRoundTripBench(runs = 15): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-home-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  const file = join(project, "small.txt");
  writeFileSync(file, "one\ntwo\nthree\n");
  let finishedAt = 0;
  const gaps: number[] = [];
  let bareFinishedAt = 0;
  const bareGaps: number[] = [];
  let sequence = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    if (req.url === "/bare") {
      if (bareFinishedAt > 0) bareGaps.push(arrived - bareFinishedAt);
      req.resume().on("end", () => {
        const rendered = renderAnthropic(
          { parts: [{ type: "tool_call", name: "read_file", input: { file_path: file }, id: "toolu_bare" }] },
          { model: "m", requestBytes: 0, includeUsage: false, sequence: 1 },
        );
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.on("finish", () => (bareFinishedAt = performance.now()));
        res.end([...rendered.parts, ...rendered.tail].join(""));
      });
      return;
    }
    let body = "";
    req.setEncoding("utf8").on("data", (c: string) => (body += c));
    req.on("end", () => {
      const messages = (JSON.parse(body).messages ?? []) as Array<{ role: string; content: unknown }>;
      const last = messages[messages.length - 1];
      const isToolResult =
        Array.isArray(last?.content) && (last.content as Array<{ type: string }>).some((c) => c.type === "tool_result");
      if (isToolResult) gaps.push(arrived - finishedAt);
      sequence += 1;
      const turn = isToolResult
        ? { parts: [{ type: "text" as const, text: "done" }] }
        : {
            parts: [
              { type: "tool_call" as const, name: "read_file", input: { file_path: file }, id: `toolu_${sequence}` },
            ],
          };
      const rendered = renderAnthropic(turn, {
        model: "claude-sonnet-4-5",
        requestBytes: body.length,
        includeUsage: false,
        sequence,
      });
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      if (!isToolResult) res.on("finish", () => (finishedAt = performance.now()));
      res.end([...rendered.parts, ...rendered.tail].join(""));
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bare = async (count: number) => {
    bareFinishedAt = 0;
    const script = `for (let i = 0; i < ${count}; i++) { const r = await fetch("${base}/bare", { method: "POST", body: "{}" }); await r.text(); }`;
    await new Promise<void>((done, fail) =>
      spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "inherit" }).on("exit", (code) =>
        code === 0 ? done() : fail(new Error(`bare client exited ${code}`)),
      ),
    );
  };
  try {
    await bare(Math.ceil(runs / 2) + 1);
    const agent = ndjsonChild(process.execPath, [BINARY], {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: base,
    });
    agent.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
    await agent.next((m) => m.id === 1);
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
    const sessionId = (await agent.next((m) => m.id === 2)).result.sessionId;
    // Two warm-up turns: the first model call and first tool run load their modules.
    const toolRuns: number[] = [];
    for (let i = 0; i < runs + 2; i++) {
      const id = 10 + i;
      const first = agent.seen.length;
      agent.send({
        jsonrpc: "2.0",
        id,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: "read it" }] },
      });
      const answer = await agent.next((m) => m.id === id && !m.method);
      if (answer.result?.stopReason !== "end_turn") throw new Error(`prompt failed: ${JSON.stringify(answer)}`);
      const at = (status: string) => {
        const index = agent.seen.findIndex(
          (m, j) => j >= first && m.method === "session/update" && m.params.update.status === status,
        );
        if (index === -1) throw new Error(`no ${status} update for the read`);
        return agent.arrived[index]!;
      };
      toolRuns.push(at("completed") - at("in_progress"));
    }
    await agent.stop();
    await bare(Math.ceil(runs / 2) + 1);
    const measured = gaps.slice(2);
    const read = await timeRead(project, file, runs * 4);
    const own = measured.map((gap) => gap - read);
    const floor = median(bareGaps);
    if (process.env.BENCH_VERBOSE)
      process.stderr.write(
        `gaps: ${gaps.map((g) => round(g, 2)).join(" ")}\ntool: ${toolRuns.map((g) => round(g, 2)).join(" ")}\n`,
      );
    return [
      {
        name: "tool.round-trip-read_file",
        value: round(median(own), 2),
        unit: "ms",
        baseline: round(floor, 2),
        ratio: round(median(own) / floor, 2),
        target: "<= 5 ms",
        note: `model done -> next request, minus the read's own run (${round(read, 2)} ms); spread ${spread(own, 2)} ms over ${own.length} turns; gap with the read ${round(median(measured), 2)} ms, in_progress -> completed ${round(median(toolRuns.slice(2)), 2)} ms`,
      },
    ];
  } finally {
    server.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
