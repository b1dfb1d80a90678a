import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess, type JsonRpcMessage } from "../support/agent-process.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";
import { isAlive, waitForExit } from "../support/processes.js";

// Every way an editor can stop the agent: the turn in flight is answered `cancelled`, other
// requests are answered, every process the agent started is gone, and the exit code says why.

let model: FakeModelServer;
let home: string;
let project: string;
let agent: AgentProcess;

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-shutdown-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-shutdown-project-"));
});
afterEach(async () => {
  if (agent && agent.child.exitCode === null && agent.child.signalCode === null) agent.child.kill("SIGKILL");
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function startWith(onRequest?: (m: JsonRpcMessage) => unknown) {
  agent = await startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    onRequest,
  });
  agent.child.stdin.on("error", () => undefined);
  await agent.initialize({ _meta: { terminal_output: true } });
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  return result.sessionId as string;
}

/** Starts a command that leaves a grandchild, and waits until both run. */
async function startCommand(sessionId: string) {
  model.enqueue(
    toolTurn("execute", {
      command: "trap '' TERM; sleep 60 & echo $! > child.pid; echo $$ > shell.pid; echo started; wait",
    }),
  );
  const prompt = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
  await agent.waitFor(() => agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")));
  const pids = await Promise.all(
    ["shell.pid", "child.pid"].map(async (f) => Number((await readFile(join(project, f), "utf8")).trim())),
  );
  return { prompt, pids };
}

describe("shutdown", () => {
  for (const [signal, code] of [
    ["SIGTERM", 143],
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const) {
    it(`${signal} during a command answers the prompt cancelled, kills the group and exits ${code}`, async () => {
      const sessionId = await startWith();
      const { prompt, pids } = await startCommand(sessionId);
      const started = Date.now();
      agent.child.kill(signal);
      expect((await prompt).result?.stopReason).toBe("cancelled");
      expect(await agent.exited).toEqual({ code, signal: null });
      console.log(`${signal}: exit after ${Date.now() - started} ms`);
      for (const pid of pids) expect(await waitForExit(pid, 1000)).toBe(true);
    });
  }

  it("stdin EOF during a streaming answer answers the prompt and a request sent just before, then exits 0", async () => {
    const sessionId = await startWith();
    model.enqueue(textTurn("word ".repeat(2000), { chunkDelayMs: 20, wordsPerChunk: 1 }));
    const prompt = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] });
    await agent.waitFor(() => agent.updates(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"));
    const list = agent.request("session/list", {});
    agent.child.stdin.end();
    expect((await prompt).result?.stopReason).toBe("cancelled");
    expect((await list).result?.sessions).toHaveLength(1);
    expect(await agent.exited).toEqual({ code: 0, signal: null });
  });

  it("SIGTERM during a permission dialog answers the prompt cancelled and exits", async () => {
    const sessionId = await startWith(() => new Promise(() => undefined));
    model.enqueue(toolTurn("execute", { command: `touch ${join(project, "ran.txt")}` }));
    const prompt = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await agent.waitFor(() => agent.messages.some((m) => m.method === "session/request_permission"));
    agent.child.kill("SIGTERM");
    expect((await prompt).result?.stopReason).toBe("cancelled");
    expect(await agent.exited).toEqual({ code: 143, signal: null });
    await expect(readFile(join(project, "ran.txt"))).rejects.toThrow();
  });

  it("a SIGKILLed agent's command dies with it (the lifeline)", async () => {
    const sessionId = await startWith();
    const { pids } = await startCommand(sessionId);
    expect(pids.every(isAlive)).toBe(true);
    agent.child.kill("SIGKILL");
    await agent.exited;
    const started = Date.now();
    for (const pid of pids) expect(await waitForExit(pid, 5000)).toBe(true);
    console.log(`SIGKILL: command group gone ${Date.now() - started} ms after the agent`);
  });
});
