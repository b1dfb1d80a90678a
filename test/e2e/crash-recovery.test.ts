// SIGKILL mid-turn, then session/load in a new process: everything before the kill comes back.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentProcess } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";

const suite = useAgentSuite({ name: "crash" });

async function start() {
  const agent = await suite.start();
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
    const { result } = await first.request("session/new", { cwd: suite.project, mcpServers: [] });
    const sessionId = result.sessionId;
    suite.model.enqueue(textTurn("A complete first answer."));
    await first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "first question" }] });
    suite.model.enqueue({
      parts: [{ type: "text", text: Array.from({ length: 400 }, (_, i) => `w${i}`).join(" ") }],
      chunkDelayMs: 15,
      wordsPerChunk: 2,
    });
    void first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "second question" }] });
    // Let a good part of the answer stream and be written, then kill the process.
    await first.waitFor(() => text(first.updates(sessionId)).includes("w150"));
    // Not a wait for something: streamed text is saved in batches (every 150 ms), so what the editor
    // had seen well before the kill must be on disk; the assertion below checks it is.
    await new Promise((r) => setTimeout(r, 400));
    const seen = text(first.updates(sessionId));
    await kill(first);

    const second = await start();
    const loaded = await second.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    expect(loaded.error).toBeUndefined();
    const replay = second.updates(sessionId);
    const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk").map((u) => u.content.text);
    expect(users).toEqual(["first question", "second question"]);
    const replayed = text(replay);
    expect(replayed.startsWith("A complete first answer.w0 w1")).toBe(true);
    // Everything the editor had seen at least 150 ms before the kill was on disk.
    expect(replayed.length).toBeGreaterThan("A complete first answer.".length + seen.length / 2);
    // And the conversation continues with it.
    suite.model.enqueue(textTurn("continuing"));
    const next = await second.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go on" }] });
    expect(next.result.stopReason).toBe("end_turn");
    expect(JSON.stringify(suite.model.requests.at(-1)!.body)).toContain("w100");
  });

  it("shows a tool call interrupted by SIGKILL as failed, with the text before it", async () => {
    const first = await start();
    const { result } = await first.request("session/new", { cwd: suite.project, mcpServers: [] });
    const sessionId = result.sessionId;
    await writeFile(join(suite.project, "a.txt"), "data\n");
    suite.model.enqueue({
      parts: [
        { type: "text", text: "Let me run a slow command." },
        { type: "tool_call", name: "execute", input: { command: "echo working; sleep 3" } },
      ],
    });
    void first.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "do the slow thing" }] });
    await first.waitFor(() => first.updates(sessionId).some((u) => u.status === "in_progress"));
    // The kill must come once the call is in the session log (the editor may see it first).
    const log = join(suite.home, ".deepagents", "sessions", `${sessionId}.jsonl`);
    await pollUntil(
      async () => (await readFile(log, "utf8").catch(() => "")).includes("echo working; sleep 3"),
      "the call in the session log",
    );
    await kill(first);

    const second = await start();
    await second.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    const replay = second.updates(sessionId);
    expect(text(replay)).toContain("Let me run a slow command.");
    const call = replay.find((u) => u.sessionUpdate === "tool_call");
    expect(call.title).toBe("echo working; sleep 3");
    const final = replay.filter((u) => u.toolCallId === call.toolCallId).at(-1);
    expect(final.status).toBe("failed");
    expect(JSON.stringify(final.content)).toContain("Interrupted");
    // The next request is valid: the unanswered call got a result.
    suite.model.enqueue(toolTurn("ls", { path: suite.project }), textTurn("recovered"));
    const next = await second.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "try again" }] });
    expect(next.result.stopReason).toBe("end_turn");
    expect(JSON.stringify(suite.model.requests.at(-2)!.body)).toContain("Interrupted");
  });
});
