import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { isAlive, waitForExit } from "../support/processes.js";

// Every way an editor can stop the agent: the turn in flight is answered `cancelled`, other
// requests are answered, every process the agent started is gone, and the exit code says why.

const suite = useAgentSuite({ name: "shutdown" });

async function startWith(onRequest?: (m: JsonRpcMessage) => unknown) {
  const sessionId = await suite.startSession({ onRequest, capabilities: { _meta: { terminal_output: true } } });
  // These tests stop the agent under the connection; a write after that must not fail the run.
  suite.agent.child.stdin.on("error", () => undefined);
  return sessionId;
}

/** Starts a command that leaves a grandchild, and waits until both run. */
async function startCommand(sessionId: string) {
  suite.model.enqueue(
    toolTurn("execute", {
      command: "trap '' TERM; sleep 60 & echo $! > child.pid; echo $$ > shell.pid; echo started; wait",
    }),
  );
  const prompt = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
  await suite.agent.waitFor(() =>
    suite.agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
  );
  const pids = await Promise.all(
    ["shell.pid", "child.pid"].map(async (f) => Number((await readFile(join(suite.project, f), "utf8")).trim())),
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
      suite.agent.child.kill(signal);
      expect((await prompt).result?.stopReason).toBe("cancelled");
      expect(await suite.agent.exited).toEqual({ code, signal: null });
      console.log(`${signal}: exit after ${Date.now() - started} ms`);
      for (const pid of pids) expect(await waitForExit(pid, 1000)).toBe(true);
    });
  }

  it("stdin EOF during a streaming answer answers the prompt and a request sent just before, then exits 0", async () => {
    const sessionId = await startWith();
    suite.model.enqueue(textTurn("word ".repeat(2000), { chunkDelayMs: 20, wordsPerChunk: 1 }));
    const prompt = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "talk" }] });
    await suite.agent.waitFor(() =>
      suite.agent.updates(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"),
    );
    const list = suite.agent.request("session/list", {});
    suite.agent.child.stdin.end();
    expect((await prompt).result?.stopReason).toBe("cancelled");
    expect((await list).result?.sessions).toHaveLength(1);
    expect(await suite.agent.exited).toEqual({ code: 0, signal: null });
  });

  it("SIGTERM during a permission dialog answers the prompt cancelled and exits", async () => {
    const sessionId = await startWith(() => new Promise(() => undefined));
    suite.model.enqueue(toolTurn("execute", { command: `touch ${join(suite.project, "ran.txt")}` }));
    const prompt = suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await suite.agent.waitFor(() => suite.agent.messages.some((m) => m.method === "session/request_permission"));
    suite.agent.child.kill("SIGTERM");
    expect((await prompt).result?.stopReason).toBe("cancelled");
    expect(await suite.agent.exited).toEqual({ code: 143, signal: null });
    await expect(readFile(join(suite.project, "ran.txt"))).rejects.toThrow();
  });

  it("a SIGKILLed agent's command dies with it (the lifeline)", async () => {
    const sessionId = await startWith();
    const { pids } = await startCommand(sessionId);
    expect(pids.every(isAlive)).toBe(true);
    suite.agent.child.kill("SIGKILL");
    await suite.agent.exited;
    const started = Date.now();
    for (const pid of pids) expect(await waitForExit(pid, 5000)).toBe(true);
    console.log(`SIGKILL: command group gone ${Date.now() - started} ms after the agent`);
  });
});
