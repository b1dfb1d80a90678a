// `npm run profile -- [startup|load|stream|tool] [cpu|heap]`: runs the built agent once under V8's
// profiler and leaves the profile in .profiles/ (git-ignored; open it in Chrome DevTools > Performance /
// Memory, or https://www.speedscope.app). `startup` drives initialize + session/new in an empty HOME;
// `first` also sends a prompt the moment session/new is answered and stops at its model request;
// `load` seeds the sessions bench's 2,000-message session and drives session/list + session/load;
// `stream` relays the stream bench's 20,000-word burst 20 times, `paced` its paced stream (1,000 chunks
// 2 ms apart) 5 times; `tool` runs 200 read_file round trips.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createFakeModelServer, textTurn, toolTurn } from "../test/support/fake-model/index.js";
import { ndjsonChild, round } from "./lib.js";
import { seedSessions } from "./sessions.bench.js";
import { twentyThousandWords } from "./stream.bench.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const OUT = resolve(import.meta.dirname, "../.profiles");
const [scenario = "startup", kind = "cpu"] = process.argv.slice(2);
if (!["startup", "first", "load", "stream", "paced", "tool"].includes(scenario) || !["cpu", "heap"].includes(kind)) {
  process.stderr.write("usage: npm run profile -- [startup|first|load|stream|paced|tool] [cpu|heap]\n");
  process.exit(2);
}

mkdirSync(OUT, { recursive: true });
const home = mkdtempSync(join(tmpdir(), "deep-acp-profile-home-"));
const project = mkdtempSync(join(tmpdir(), "deep-acp-profile-project-"));
const model = await createFakeModelServer();
const text = twentyThousandWords();
model.setHandler((request) =>
  scenario === "tool"
    ? request.messages.at(-1)?.role === "tool"
      ? textTurn("done")
      : toolTurn("read_file", { file_path: join(project, "small.txt") })
    : textTurn(text, scenario === "paced" ? { wordsPerChunk: 20, chunkDelayMs: 2 } : {}),
);
try {
  if (scenario === "load") await seedSessions(home, project);
  if (scenario === "tool") writeFileSync(join(project, "small.txt"), "one\ntwo\nthree\n");
  const flags =
    kind === "cpu"
      ? ["--cpu-prof", `--cpu-prof-dir=${OUT}`, "--cpu-prof-interval=250"]
      : ["--heap-prof", `--heap-prof-dir=${OUT}`];
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "profile-key",
    ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
  };
  const start = performance.now();
  const agent = ndjsonChild(process.execPath, [...flags, BINARY], env);
  const ask = async (id: number, method: string, params: unknown) => {
    agent.send({ jsonrpc: "2.0", id, method, params });
    const answer = await agent.next((m) => m.id === id && !m.method);
    process.stderr.write(
      `${method} answered at ${round(performance.now() - start)} ms${answer.error ? ` with ${JSON.stringify(answer.error)}` : ""}\n`,
    );
  };
  await ask(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  if (scenario === "startup") await ask(2, "session/new", { cwd: project, mcpServers: [] });
  else if (scenario === "first") {
    await ask(2, "session/new", { cwd: project, mcpServers: [] });
    const { sessionId } = (await agent.next((m) => m.id === 2)).result;
    const requested = model.waitForRequests(1);
    agent.send({
      jsonrpc: "2.0",
      id: 3,
      method: "session/prompt",
      params: { sessionId, prompt: [{ type: "text", text: "hi" }] },
    });
    await requested;
    process.stderr.write(`model request at ${round(performance.now() - start)} ms\n`);
    await agent.next((m) => m.id === 3 && !m.method);
  } else if (scenario !== "load") {
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
    const sessionId = (await agent.next((m) => m.id === 2)).result.sessionId;
    const prompt = (id: number, words: string) => {
      agent.send({
        jsonrpc: "2.0",
        id,
        method: "session/prompt",
        params: { sessionId, prompt: [{ type: "text", text: words }] },
      });
      return agent.next((m) => m.id === id && !m.method);
    };
    for (let i = 0; i < { tool: 200, stream: 20, paced: 5 }[scenario]!; i++) {
      await prompt(10 + 2 * i, scenario === "tool" ? "read it" : "talk");
      // Each run should relay one answer, not a growing conversation.
      if (scenario !== "tool") await prompt(11 + 2 * i, "/clear");
    }
    process.stderr.write(`${scenario} done at ${round(performance.now() - start)} ms\n`);
  } else {
    await ask(2, "session/list", {});
    await ask(3, "session/load", { sessionId: "big", cwd: project, mcpServers: [] });
  }
  await agent.stop();
  process.stderr.write(`profile written to ${OUT}\n`);
} finally {
  await model.close();
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}
