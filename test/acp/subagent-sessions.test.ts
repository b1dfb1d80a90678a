// Subagent sessions (ACP v1, `clientCapabilities.subagents`): every task run is a child session
// announced on its parent, its traffic under its own id, cancellable on its own, replayed by load.
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUpdates, type Harness } from "../support/acp-harness.js";
import { textTurn, toolTurn, type FakeTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { pollUntil } from "../support/poll.js";

const suite = useHarnessSuite({ name: "subagent-sessions", prepare: gitProject });
const SUBAGENTS: acp.ClientCapabilities = { subagents: {} };

const isSubagent = (request: RecordedRequest) => request.system.includes("You are a subagent");

type Announce = Extract<acp.SessionUpdate, { sessionUpdate: "subagent_update" }>;
const announcements = (h: Harness, parent: string) =>
  h.updates
    .filter((u) => u.sessionId === parent && u.update.sessionUpdate === "subagent_update")
    .map((u) => u.update as Announce);
const under = (h: Harness, sessionId: string, from = 0) =>
  h.updates
    .slice(from)
    .filter((u) => u.sessionId === sessionId)
    .map((u) => u.update);
const textOf = (updates: acp.SessionUpdate[], kind: "agent_message_chunk" | "agent_thought_chunk") =>
  updates.map((u) => (u.sessionUpdate === kind && u.content.type === "text" ? u.content.text : "")).join("");

/** The parent asks for one task; the subagent thinks, runs a command, and answers. */
function delegateOnce(h: Harness) {
  h.model.setHandler((request): FakeTurn => {
    if (isSubagent(request))
      return request.messages.length === 1
        ? {
            parts: [
              { type: "thinking", text: "I should run it" },
              { type: "text", text: "Running it now. " },
              { type: "tool_call", name: "execute", input: { command: "echo from-child" } },
            ],
          }
        : textTurn("CHILD: it printed from-child");
    return request.messages.length === 1
      ? toolTurn("task", { description: "run the echo\nand report", subagent_type: "general-purpose" })
      : textTurn("parent: done");
  });
}

/**
 * Starts a turn whose subagent runs a command that does not end (bypass mode: no dialog) and waits
 * until it runs. `after`: the parent's answer once the task call returns.
 */
async function startLongJob(h: Harness, after: FakeTurn) {
  const pidFile = join(await suite.tempDir("scratch"), "pid");
  const { sessionId } = await h.newSession(suite.project);
  await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
  h.model.setHandler((request): FakeTurn => {
    if (isSubagent(request)) return toolTurn("execute", { command: `sh -c 'echo $$ > ${pidFile}; exec sleep 1000'` });
    return request.messages.length === 1
      ? toolTurn("task", { description: "long job", subagent_type: "general-purpose" })
      : after;
  });
  const turn = h.prompt(sessionId, "start the long job");
  await pollUntil(
    async () => existsSync(pidFile) && (await readFile(pidFile, "utf8")).trim() !== "",
    "the subagent's command to start",
    { timeoutMs: 15_000 },
  );
  return { sessionId, turn };
}

describe("subagent sessions", () => {
  it("announce the child on its parent before any child traffic, then stream its text, thoughts, tool calls and permission under its own id", async () => {
    const h = await suite.start({ clientCapabilities: SUBAGENTS });
    const { sessionId } = await h.newSession(suite.project);
    delegateOnce(h);
    const start = h.updates.length;
    const { response, updates } = await h.prompt(sessionId, "delegate");
    expect(response.stopReason).toBe("end_turn");

    const [announce, running, blocked, resumed, idle] = announcements(h, sessionId);
    const child = announce!.sessionId;
    expect(child).not.toBe(sessionId);
    expect(announce).toMatchObject({
      title: "general-purpose: run the echo",
      description: "run the echo\nand report",
      cwd: suite.project,
      capabilities: { cancel: {} },
    });
    expect(running).toMatchObject({ sessionId: child, state: { state: "running" } });
    // Its permission dialog blocks it on the user until answered.
    expect(blocked).toMatchObject({ sessionId: child, state: { state: "requires_action" } });
    expect(resumed).toMatchObject({ sessionId: child, state: { state: "running" } });
    expect(idle).toMatchObject({
      sessionId: child,
      state: { state: "idle", stopReason: "end_turn" },
      capabilities: {},
    });

    // Nothing carries the child's id before its announcement.
    const firstChild = h.updates.findIndex((u) => u.sessionId === child);
    const announced = h.updates.findIndex((u) => u.update.sessionUpdate === "subagent_update");
    expect(announced).toBeLessThan(firstChild);

    const childUpdates = under(h, child, start);
    expect(childUpdates[0]).toMatchObject({
      sessionUpdate: "session_message",
      senderSessionId: sessionId,
      recipientSessionId: child,
      content: [{ type: "text", text: expect.stringContaining("run the echo") }],
    });
    expect(textOf(childUpdates, "agent_thought_chunk")).toBe("I should run it");
    expect(textOf(childUpdates, "agent_message_chunk")).toBe("Running it now. CHILD: it printed from-child");
    const calls = toolUpdates(childUpdates);
    expect(calls.map((u) => u.title).filter(Boolean)).toEqual(["echo from-child", "echo from-child"]);
    expect(calls.at(-1)!.status).toBe("completed");
    expect(JSON.stringify(calls.map((u) => u._meta))).not.toContain("parentToolCallId");
    // The child's dialog is the child's, and the parent shows none of the child's work.
    expect(h.permissions.map((p) => [p.sessionId, p.toolCall.title])).toEqual([[child, "echo from-child"]]);
    expect(toolUpdates(updates).map((u) => u.title ?? "")).not.toContain("echo from-child");
    expect(textOf(updates, "agent_message_chunk")).toBe("parent: done");
    const task = toolUpdates(updates).findLast((u) => u.status === "completed")!;
    expect(JSON.stringify(task.content)).toContain("CHILD: it printed from-child");
    expect(h.schema.violations).toEqual([]);
  });

  it("cancelling a child session stops only that subagent: the parent's turn goes on and its model is told", async () => {
    const h = await suite.start({ clientCapabilities: SUBAGENTS });
    const { sessionId, turn } = await startLongJob(h, textTurn("the subagent was stopped; carrying on"));
    const child = announcements(h, sessionId)[0]!.sessionId;
    await h.cancel(child);
    const { response, updates } = await turn;
    expect(response.stopReason).toBe("end_turn");
    expect(announcements(h, sessionId).at(-1)).toMatchObject({ state: { state: "idle", stopReason: "cancelled" } });
    const told = h.model.requests.at(-1)!.messages.find((m) => m.role === "tool")!;
    expect(told).toMatchObject({ isError: true, text: "Cancelled by the user." });
    expect(updates.some((u) => u.sessionUpdate === "agent_message_chunk")).toBe(true);
  });

  it("cancelling the parent cascades: each running child is reported idle, cancelled, before the prompt answers, and load shows the same", async () => {
    const first = await suite.start({ clientCapabilities: SUBAGENTS });
    const { sessionId, turn } = await startLongJob(first, textTurn("not reached"));
    await first.cancel(sessionId);
    const { response } = await turn;
    expect(response.stopReason).toBe("cancelled");
    const ended = { state: { state: "idle", stopReason: "cancelled" }, capabilities: {} };
    expect(announcements(first, sessionId).at(-1)).toEqual({
      sessionUpdate: "subagent_update",
      sessionId: expect.any(String),
      ...ended,
    });
    await first.close();

    const h = await suite.start({ clientCapabilities: SUBAGENTS });
    await h.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    expect(announcements(h, sessionId).at(-1)).toMatchObject(ended);
  });

  it("a subagent's question (ask_user) is asked under its child session, where its tool call is shown", async () => {
    const h = await suite.start({ clientCapabilities: SUBAGENTS });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request): FakeTurn => {
      if (isSubagent(request))
        return request.messages.length === 1
          ? toolTurn("ask_user", { question: "Delete the cache?", options: ["Yes", "No"] })
          : textTurn("asked");
      return request.messages.length === 1
        ? toolTurn("task", { description: "ask first", subagent_type: "general-purpose" })
        : textTurn("done");
    });
    await h.prompt(sessionId, "delegate");
    const child = announcements(h, sessionId)[0]!.sessionId;
    expect(h.permissions.map((p) => [p.sessionId, p.toolCall.title])).toEqual([[child, "Delete the cache?"]]);
    const asked = toolUpdates(under(h, child)).find((u) => u.toolCallId === h.permissions[0]!.toolCall.toolCallId);
    expect(asked).toBeDefined();
  });

  it("session/load replays the whole tree: the announcement, the child's own traffic under its id, its end", async () => {
    const first = await suite.start({ clientCapabilities: SUBAGENTS });
    const { sessionId } = await first.newSession(suite.project);
    delegateOnce(first);
    await first.prompt(sessionId, "delegate");
    await first.close();

    const h = await suite.start({ clientCapabilities: SUBAGENTS });
    await h.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    const [announce, , idle] = announcements(h, sessionId);
    const child = announce!.sessionId;
    expect(announce).toMatchObject({ title: "general-purpose: run the echo", cwd: suite.project });
    expect(idle).toMatchObject({ state: { state: "idle", stopReason: "end_turn" } });
    const childUpdates = under(h, child);
    expect(childUpdates[0]).toMatchObject({ sessionUpdate: "session_message", senderSessionId: sessionId });
    expect(textOf(childUpdates, "agent_message_chunk")).toBe("Running it now. CHILD: it printed from-child");
    expect(toolUpdates(childUpdates).map((u) => u.status)).toEqual(["pending", "completed"]);
    expect(h.updates.findIndex((u) => u.sessionId === child)).toBeGreaterThan(
      h.updates.findIndex((u) => u.update.sessionUpdate === "subagent_update"),
    );
    // The child's text is not the parent's: the model's history holds only the parent's answer.
    h.model.setHandler(() => textTurn("ok"));
    await h.prompt(sessionId, "again");
    expect(JSON.stringify(h.model.requests.at(-1)!.messages)).not.toContain("Running it now.");
  });

  it("every task() of an eval fan-out is a child session of its own", async () => {
    const h = await suite.start({ clientCapabilities: SUBAGENTS });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request): FakeTurn => {
      if (isSubagent(request)) return textTurn(`report for ${/alpha|beta/.exec(request.messages[0]!.text)?.[0]}`);
      if (request.messages.at(-1)?.role === "user")
        return toolTurn("eval", {
          code: [
            "const [a, b] = await Promise.all([",
            '  task({ description: "the alpha job", subagentType: "general-purpose" }),',
            '  task({ description: "the beta job", subagentType: "general-purpose" }),',
            "]);",
            "a + ' | ' + b",
          ].join("\n"),
        });
      return textTurn("both done");
    });
    await h.prompt(sessionId, "fan out");
    const started = announcements(h, sessionId).filter((u) => u.title);
    expect(started.map((u) => u.description).sort()).toEqual(["the alpha job", "the beta job"]);
    const [alpha, beta] = started.map((u) => u.sessionId);
    expect(alpha).not.toBe(beta);
    for (const child of [alpha!, beta!]) {
      const job = started.find((u) => u.sessionId === child)!.description!.split(" ")[1];
      expect(textOf(under(h, child), "agent_message_chunk")).toBe(`report for ${job}`);
    }
  });

  it("without the capability a subagent looks as it always did: its tool calls under the task call, none of its text", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    delegateOnce(h);
    const start = h.updates.length;
    const { updates } = await h.prompt(sessionId, "delegate");
    expect(h.updates.slice(start).every((u) => u.sessionId === sessionId)).toBe(true);
    expect(updates.some((u) => u.sessionUpdate === "subagent_update" || u.sessionUpdate === "session_message")).toBe(
      false,
    );
    expect(textOf(updates, "agent_message_chunk")).toBe("parent: done");
    expect(textOf(updates, "agent_thought_chunk")).toBe("");
    const command = toolUpdates(updates).find((u) => u.title === "echo from-child")!;
    const task = toolUpdates(updates).find((u) => u.sessionUpdate === "tool_call" && u.kind === "think")!;
    expect(command._meta).toMatchObject({
      "deep-acp": { parentToolCallId: task.toolCallId },
      claudeCode: { parentToolUseId: task.toolCallId },
    });
    expect(h.permissions[0]!.sessionId).toBe(sessionId);
  });
});
