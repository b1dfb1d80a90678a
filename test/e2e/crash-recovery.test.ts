// SIGKILL mid-turn, then session/load in a new process: everything before the kill comes back.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

let model: FakeModelServer;
let home: string;
let project: string;
const agents: AgentProcess[] = [];

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-crash-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-crash-project-"));
});
afterEach(async () => {
  for (const a of agents.splice(0)) await a.stop();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function start() {
  const agent = await startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
  });
  agents.push(agent);
  await agent.initialize({});
  return agent;
}

async function kill(agent: AgentProcess) {
  agent.child.kill("SIGKILL");
  await agent.exited;
}

const text = (updates: any[]) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");

describe("crash recovery", () => {
  it("keeps a streaming answer that was cut off by SIGKILL", async () => {
    const first = await start();
    const { result } = await first.request("session/new", { cwd: project, mcpServers: [] });
    const sessionId = result.sessionId;
    model.enqueue(textTurn("A complete first answer."));
    await first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first question" }] });
    model.enqueue({
      parts: [{ type: "text", text: Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ") }],
      chunkDelayMs: 15,
      wordsPerChunk: 2,
    });
    void first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second question" }] });
    // Let a good part of the answer stream and be written, then kill the process.
    await first.waitFor(() => text(first.updates(sessionId)).includes("w150"));
    await new Promise((r) => setTimeout(r, 400));
    const seen = text(first.updates(sessionId));
    await kill(first);

    const second = await start();
    const loaded = await second.request("session/load", { sessionId, cwd: project, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    const replay = second.updates(sessionId);
    const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    expect(users).toEqual(["first question", "second question"]);
    const replayed = text(replay);
    expect(replayed.startsWith("A complete first answer.w0 w1")).toBe(true);
    // Everything the editor had seen at least 150 ms before the kill was on disk.
    expect(replayed.length).toBeGreaterThan("A complete first answer.".length + seen.length / 2);
    // And the conversation continues with it.
    model.enqueue(textTurn("continuing"));
    const next = await second.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go on" }] });
    expect(next.result.stopReason).toBe("end_turn");
    expect(JSON.stringify(model.requests.at(-1)!.body)).toContain("w100");
  });

  it("shows a tool call interrupted by SIGKILL as failed, with the text before it", async () => {
    const first = await start();
    const { result } = await first.request("session/new", { cwd: project, mcpServers: [] });
    const sessionId = result.sessionId;
    await writeFile(join(project, "a.txt"), "data\n");
    model.enqueue({
      parts: [
        { type: "text", text: "Let me run a slow command." },
        { type: "tool_call", name: "execute", input: { command: "echo working; sleep 3" } },
      ],
    });
    void first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do the slow thing" }] });
    await first.waitFor(() => first.updates(sessionId).some((u) => u.status === "in_progress"));
    await new Promise((r) => setTimeout(r, 300));
    await kill(first);

    const second = await start();
    await second.request("session/load", { sessionId, cwd: project, mcpServers: [] });
    const replay = second.updates(sessionId);
    expect(text(replay)).toContain("Let me run a slow command.");
    const call = replay.find((u) => u.sessionUpdate === "tool_call");
    expect(call.title).toBe("echo working; sleep 3");
    const final = replay.filter((u) => u.toolCallId === call.toolCallId).at(-1);
    expect(final.status).toBe("failed");
    expect(JSON.stringify(final.content)).toContain("Interrupted");
    // The next request is valid: the unanswered call got a result.
    model.enqueue(toolTurn("ls", { path: project }), textTurn("recovered"));
    const next = await second.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "try again" }] });
    expect(next.result.stopReason).toBe("end_turn");
    expect(JSON.stringify(model.requests.at(-2)!.body)).toContain("Interrupted");
  });
});
