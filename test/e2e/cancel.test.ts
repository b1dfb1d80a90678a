import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { isAlive, waitForExit } from "../support/processes.js";
import { startAgentProcess, type AgentProcess, type JsonRpcMessage } from "../support/agent-process.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

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
  home = await mkdtemp(join(tmpdir(), "deep-acp-cancel-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-cancel-project-"));
});
afterEach(async () => {
  await agent?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function startWith(onRequest?: (m: JsonRpcMessage) => unknown) {
  agent = await startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    onRequest,
  });
  await agent.initialize({ _meta: { terminal_output: true } });
  const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
  return result.sessionId as string;
}

describe("cancellation", () => {
  it("kills a running command's whole process group and answers `cancelled`", async () => {
    const sessionId = await startWith();
    // The command starts a grandchild that would outlive a plain kill of the shell.
    model.enqueue(
      toolTurn("execute", { command: "sleep 60 & echo $! > child.pid; echo $$ > shell.pid; echo started; wait" }),
    );
    const pending = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await agent.waitFor(() =>
      agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const shellPid = Number((await readFile(join(project, "shell.pid"), "utf8")).trim());
    const childPid = Number((await readFile(join(project, "child.pid"), "utf8")).trim());
    expect(isAlive(childPid)).toBe(true);
    agent.notify("session/cancel", { sessionId });
    const response = await pending;
    expect(response.result.stopReason).toBe("cancelled");
    expect(await waitForExit(shellPid, 1000)).toBe(true);
    expect(await waitForExit(childPid, 1000)).toBe(true);
    const after = agent.messages.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(agent.messages.slice(after).filter((m) => m.method === "session/update")).toEqual([]);
  });

  it("cancels during a permission dialog without running the command or completing the call", async () => {
    let release: (value: unknown) => void = () => undefined;
    const sessionId = await startWith(
      (message) =>
        new Promise((resolve) => {
          expect(message.method).toBe("session/request_permission");
          release = resolve;
        }),
    );
    model.enqueue(toolTurn("execute", { command: `touch ${join(project, "ran.txt")}` }));
    const pending = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] });
    await agent.waitFor(() => agent.messages.some((m) => m.method === "session/request_permission"));
    const permission = agent.messages.find((m) => m.method === "session/request_permission")!;
    expect(permission.params.toolCall.title).toContain("touch");
    agent.notify("session/cancel", { sessionId });
    release({ outcome: { outcome: "cancelled" } });
    const response = await pending;
    expect(response.result.stopReason).toBe("cancelled");
    await expect(readFile(join(project, "ran.txt"))).rejects.toThrow();
    const toolCallId = permission.params.toolCall.toolCallId;
    const statuses = agent
      .updates(sessionId)
      .filter((u) => u.toolCallId === toolCallId)
      .map((u) => u.status);
    expect(statuses).not.toContain("completed");
    expect(statuses).not.toContain("failed");
    // Zed's scenario: the next prompt works.
    model.enqueue(textTurn("Goodbye!"));
    const next = await agent.request("session/prompt", {
      sessionId,
      prompt: [{ type: "text", text: "Stop running and say goodbye to me." }],
    });
    expect(next.result.stopReason).toBe("end_turn");
  });

  it("closes a session mid-turn: the prompt answers `cancelled` and the command dies", async () => {
    const sessionId = await startWith();
    model.enqueue(toolTurn("execute", { command: "echo $$ > shell.pid; echo started; sleep 60" }));
    const pending = agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await agent.waitFor(() =>
      agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const shellPid = Number((await readFile(join(project, "shell.pid"), "utf8")).trim());
    const closed = await agent.request("session/close", { sessionId });
    expect(closed.result).toEqual({});
    expect((await pending).result.stopReason).toBe("cancelled");
    expect(await waitForExit(shellPid, 1000)).toBe(true);
    expect(
      (await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "x" }] })).error?.code,
    ).toBe(-32002);
  });

  it("kills running commands when the editor goes away (stdin closes)", async () => {
    const sessionId = await startWith();
    model.enqueue(toolTurn("execute", { command: "echo $$ > shell.pid; echo started; sleep 60" }));
    void agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run" }] });
    await agent.waitFor(() =>
      agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
    );
    const shellPid = Number((await readFile(join(project, "shell.pid"), "utf8")).trim());
    const exit = await agent.stop();
    expect(exit.code).toBe(0);
    expect(await waitForExit(shellPid, 1000)).toBe(true);
  });
});
