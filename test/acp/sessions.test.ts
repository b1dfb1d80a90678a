import type * as acp from "@agentclientprotocol/sdk/unstable";
import { appendFile, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createSessionStore } from "../../src/transcript/store/index.js";
import { agentText, type Harness } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "sessions" });

/** A short conversation: a greeting, then a turn with a read, an edit and a plan. */
async function converse(h: Harness) {
  await writeFile(join(suite.project, "a.txt"), "one\n");
  const { sessionId } = await h.newSession(suite.project);
  h.model.enqueue(textTurn("Hello there."));
  const first = await h.prompt(sessionId, "Say hello");
  h.model.enqueue(
    {
      parts: [
        { type: "thinking", text: "Plan the edit." },
        {
          type: "tool_call",
          name: "write_todos",
          input: { todos: [{ content: "edit a.txt", status: "in_progress" }] },
        },
      ],
    },
    toolTurn("read_file", { file_path: join(suite.project, "a.txt") }),
    toolTurn("edit_file", { file_path: join(suite.project, "a.txt"), old_string: "one", new_string: "two" }),
    textTurn("Edited a.txt."),
  );
  await h.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
  const second = await h.prompt(sessionId, "Change one to two");
  return { sessionId, first, second };
}

describe("durable sessions", () => {
  it("lists sessions with title and time, filtered by cwd, newest first", async () => {
    const h = await suite.start();
    const { sessionId } = await converse(h);
    await h.newSession(suite.project); // never prompted: not listed
    const other = await suite.tempDir("other");
    const { sessionId: otherId } = await h.newSession(other);
    h.model.enqueue(textTurn("hi"));
    await h.prompt(otherId, "elsewhere");
    const all = await h.agent.request("session/list", {});
    expect(all.sessions.map((s) => s.sessionId)).toEqual([otherId, sessionId]);
    const here = await h.agent.request("session/list", { cwd: suite.project });
    expect(here.sessions).toHaveLength(1);
    expect(here.sessions[0]).toMatchObject({ sessionId, cwd: suite.project, title: "Say hello" });
    expect(Date.parse(here.sessions[0]!.updatedAt!)).not.toBeNaN();
    expect((await h.agent.request("session/list", { cwd: "/nowhere" })).sessions).toEqual([]);
  });

  it("replays the whole conversation before answering session/load, in a new process", async () => {
    const before = await suite.start();
    const { sessionId } = await converse(before);
    await before.close();

    const after = await suite.start();
    const start = after.updates.length;
    const response = await after.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    // Everything replayed arrived before the response.
    const replay = after.updates.slice(start).map((n) => n.update);
    const users = replay.filter((u) => u.sessionUpdate === "user_message_chunk");
    expect(users.map((u) => (u.content as { text: string }).text)).toEqual(["Say hello", "Change one to two"]);
    expect(new Set(users.map((u) => u.messageId)).size).toBe(2);
    expect(agentText(replay)).toBe("Hello there.Edited a.txt.");
    expect(replay.some((u) => u.sessionUpdate === "agent_thought_chunk")).toBe(true);
    const edit = replay.find(
      (u) => u.sessionUpdate === "tool_call" && u.kind === "edit" && u.title === "a.txt",
    ) as acp.ToolCall;
    const done = replay
      .filter((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === edit.toolCallId)
      .at(-1) as acp.ToolCallUpdate;
    expect(done.status).toBe("completed");
    expect(done.content).toEqual([
      { type: "diff", path: join(suite.project, "a.txt"), oldText: "one\n", newText: "two\n" },
    ]);
    expect(replay.find((u) => u.sessionUpdate === "plan")).toMatchObject({
      entries: [{ content: "edit a.txt", status: "in_progress" }],
    });
    expect(replay.some((u) => u.sessionUpdate === "usage_update")).toBe(true);
    expect(response.modes?.currentModeId).toBe("accept-edits");
    // The model sees the old conversation on the next turn.
    after.model.enqueue(textTurn("I remember."));
    await after.prompt(sessionId, "what did we do?");
    const sent = JSON.stringify(after.model.requests[0]!.body);
    expect(sent).toContain("Change one to two");
    expect(sent).toContain("Edited a.txt.");
  });

  it("resumes without replaying and keeps the history for the model", async () => {
    const before = await suite.start();
    const { sessionId } = await converse(before);
    await before.close();
    const after = await suite.start();
    const start = after.updates.length;
    await after.agent.request("session/resume", { sessionId, cwd: suite.project });
    // Not a wait for something: a quiet period in which a replay sent behind the answer would show.
    await new Promise((r) => setTimeout(r, 20));
    expect(after.updates.slice(start).filter((n) => n.update.sessionUpdate !== "available_commands_update")).toEqual(
      [],
    );
    after.model.enqueue(textTurn("ok"));
    await after.prompt(sessionId, "continue");
    expect(JSON.stringify(after.model.requests[0]!.body)).toContain("Say hello");
  });

  it("forks up to a user message", async () => {
    const h = await suite.start();
    const { sessionId, second } = await converse(h);
    const secondUserId = (second.response._meta as { "deep-acp": { userMessageId: string } })["deep-acp"].userMessageId;
    const fork = await h.agent.request("session/fork", {
      sessionId,
      cwd: suite.project,
      _meta: { "deep-acp": { messageId: secondUserId } },
    });
    expect(fork.sessionId).not.toBe(sessionId);
    h.model.enqueue(textTurn("forked"));
    await h.prompt(fork.sessionId, "in the fork");
    const sent = JSON.stringify(h.model.requests.at(-1)!.body);
    expect(sent).toContain("Say hello");
    expect(sent).not.toContain("Change one to two");
    const whole = await h.agent.request("session/fork", { sessionId, cwd: suite.project });
    h.model.enqueue(textTurn("whole"));
    await h.prompt(whole.sessionId, "in the whole fork");
    expect(JSON.stringify(h.model.requests.at(-1)!.body)).toContain("Change one to two");
  });

  it("rewinds to a message, restoring edited files unless someone changed them since", async () => {
    const h = await suite.start();
    const { sessionId, second } = await converse(h);
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("two\n");
    const userMessageId = (second.response._meta as { "deep-acp": { userMessageId: string } })["deep-acp"]
      .userMessageId;
    const report = await h.agent.request<{ restoredFiles: string[]; notRestored: unknown[] }>(
      "_deep-acp/session/rewind",
      { sessionId, messageId: userMessageId },
    );
    expect(report).toEqual({ restoredFiles: [join(suite.project, "a.txt")], notRestored: [] });
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("one\n");
    h.model.enqueue(textTurn("rewound"));
    await h.prompt(sessionId, "after rewind");
    expect(JSON.stringify(h.model.requests.at(-1)!.body)).not.toContain("Change one to two");

    // A second conversation whose edit is then changed by the user is left alone.
    const again = await converse(h);
    await writeFile(join(suite.project, "a.txt"), "user changed it\n");
    const id = (again.second.response._meta as { "deep-acp": { userMessageId: string } })["deep-acp"].userMessageId;
    const refused = await h.agent.request<{
      restoredFiles: string[];
      notRestored: Array<{ path: string; reason: string }>;
    }>("_deep-acp/session/rewind", { sessionId: again.sessionId, messageId: id });
    expect(refused.restoredFiles).toEqual([]);
    expect(refused.notRestored).toEqual([
      { path: join(suite.project, "a.txt"), reason: "changed since the agent wrote it" },
    ]);
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("user changed it\n");
    await expect(h.agent.request("_deep-acp/session/rewind", { sessionId, messageId: "nope" })).rejects.toMatchObject({
      code: -32602,
    });
  });

  it("rewinds only files inside the session's current folders: after a load with another cwd the old project is left alone", async () => {
    const h = await suite.start();
    const { sessionId, second } = await converse(h);
    const userMessageId = (second.response._meta as { "deep-acp": { userMessageId: string } })["deep-acp"]
      .userMessageId;
    const elsewhere = await suite.tempDir("elsewhere");
    const loader = await suite.start();
    await loader.agent.request("session/load", { sessionId, cwd: elsewhere, mcpServers: [] });
    const report = await loader.agent.request<{
      restoredFiles: string[];
      notRestored: Array<{ path: string; reason: string }>;
    }>("_deep-acp/session/rewind", { sessionId, messageId: userMessageId });
    expect(report.restoredFiles).toEqual([]);
    expect(report.notRestored).toEqual([
      {
        path: join(suite.project, "a.txt"),
        reason: expect.stringContaining("outside the session's current folders"),
      },
    ]);
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("two\n");
  });

  it("deletes idempotently and forgets the session", async () => {
    const h = await suite.start();
    const { sessionId } = await converse(h);
    expect(await h.agent.request("session/delete", { sessionId })).toEqual({});
    expect(await h.agent.request("session/delete", { sessionId })).toEqual({});
    expect((await h.agent.request("session/list", {})).sessions).toEqual([]);
    await expect(
      h.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] }),
    ).rejects.toMatchObject({
      code: -32002,
    });
    expect((await readdir(join(suite.home, ".deepagents", "sessions"))).filter((f) => f.includes(sessionId))).toEqual(
      [],
    );
  });

  it("skips a corrupted log line and loads the rest", async () => {
    const h = await suite.start();
    const { sessionId } = await converse(h);
    await h.close();
    const log = join(suite.home, ".deepagents", "sessions", `${sessionId}.jsonl`);
    const lines = (await readFile(log, "utf8")).split("\n");
    lines.splice(3, 0, "{this is not json");
    await writeFile(log, lines.join("\n"));
    await appendFile(log, '{"t":"text","mid":"x","te'); // torn last line
    const after = await suite.start();
    await after.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    expect(agentText(after.updates.map((u) => u.update))).toContain("Edited a.txt.");
  });

  it("keeps the session's scratch files with it", async () => {
    const before = await suite.start();
    const { sessionId } = await before.newSession(suite.project);
    await before.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    before.model.enqueue(
      toolTurn("write_file", { file_path: "/large_tool_results/note.txt", content: "kept with the session" }),
      textTurn("saved"),
    );
    await before.prompt(sessionId, "save a note");
    await before.close();
    const after = await suite.start();
    await after.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    after.model.enqueue(toolTurn("read_file", { file_path: "/large_tool_results/note.txt" }), textTurn("read"));
    await after.prompt(sessionId, "read the note");
    expect(JSON.stringify(after.model.requests[1]!.body)).toContain("kept with the session");
  });

  it("pages through 250 sessions with an opaque cursor", async () => {
    const store = createSessionStore({ dir: join(suite.home, ".deepagents", "sessions") });
    const base = Date.parse("2026-01-01T00:00:00Z");
    for (let i = 0; i < 250; i++) {
      const at = new Date(base + i * 1000).toISOString();
      await store.create({
        id: `s${String(i).padStart(3, "0")}`,
        cwd: i % 5 === 0 ? "/other" : suite.project,
        createdAt: at,
        updatedAt: at,
      });
    }
    const h = await suite.start();
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page: acp.ListSessionsResponse = await h.agent.request("session/list", {
        cwd: suite.project,
        ...(cursor ? { cursor } : {}),
      });
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toHaveLength(200);
    expect(new Set(seen).size).toBe(200);
    expect(seen[0]).toBe("s249");
    expect([...seen].sort().reverse()).toEqual(seen);
    await expect(h.agent.request("session/list", { cursor: "garbage" })).rejects.toMatchObject({ code: -32602 });
  });
});
