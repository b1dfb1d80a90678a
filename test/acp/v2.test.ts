// ACP v2 beside v1: the SDK's own v2 client through the SDK's protocol router. Every message the
// agent sends is checked against the SDK's v2 schema (the harness fails on close otherwise).
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isIdle, startV2Harness, type V2Harness } from "../support/acp-v2-harness.js";
import { textTurn, toolTurn, type FakeTurn } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";

let project: string;
let home: string;
const harnesses: V2Harness[] = [];
const start = async () => {
  const h = await startV2Harness({ home });
  harnesses.push(h);
  return h;
};

beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "deep-acp-v2-project-"));
  home = await mkdtemp(join(tmpdir(), "deep-acp-v2-home-"));
  await mkdir(join(project, ".git"));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

const states = (updates: v2.SessionUpdate[]) =>
  updates.filter((u) => u.sessionUpdate === "state_update").map((u) => u as { state: string; stopReason?: string });

describe("ACP v2", () => {
  it("answers v2, acknowledges a prompt with the inserted message's id and reports the turn as state updates", async () => {
    const h = await start();
    expect(h.init).toMatchObject({ protocolVersion: 2, info: { name: "deep-acp" }, capabilities: { session: {} } });
    expect(h.init.authMethods?.[0]).toMatchObject({ type: "agent", methodId: "deep-acp-login" });
    const { sessionId, configOptions } = await h.newSession(project);
    expect(configOptions?.map((o) => o.configId)).toContain("mode");
    h.model.setHandler(() => textTurn("Hello from deep-acp"));
    const { messageId } = await h.prompt(sessionId, "hi");
    await h.idle(sessionId);
    const updates = h.of(sessionId);
    expect(updates.find((u) => u.sessionUpdate === "user_message")).toMatchObject({
      messageId,
      content: [{ type: "text", text: "hi" }],
    });
    expect(states(updates).map((s) => [s.state, s.stopReason])).toEqual([
      ["running", undefined],
      ["idle", "end_turn"],
    ]);
    const text = updates.map((u) =>
      u.sessionUpdate === "agent_message_chunk" ? (u.content as { text: string }).text : "",
    );
    expect(text.join("")).toBe("Hello from deep-acp");
    const commands = updates.find((u) => u.sessionUpdate === "available_commands_update") as {
      availableCommands: Array<{ type: string; name: string }>;
    };
    expect(commands.availableCommands.every((c) => c.type === "command")).toBe(true);
    // A session this connection did not open takes no prompt (nothing is inserted).
    await expect(h.prompt("no-such-session", "hi")).rejects.toMatchObject({ code: -32002 });
  });

  it("asks permission in v2's shape, blocks as requires_action, and shows an edit as a diff with a git patch", async () => {
    const h = await start();
    const { sessionId } = await h.newSession(project);
    const file = join(project, "a.txt");
    await writeFile(file, "one\ntwo\nthree\n");
    h.model.setHandler((request): FakeTurn =>
      request.messages.length === 1
        ? toolTurn("edit_file", { file_path: file, old_string: "two", new_string: "TWO" })
        : textTurn("edited"),
    );
    await h.prompt(sessionId, "edit it");
    await h.idle(sessionId);
    expect(await readFile(file, "utf8")).toBe("one\nTWO\nthree\n");
    const [permission] = h.permissions;
    expect(permission).toMatchObject({ sessionId, subject: { type: "tool_call" } });
    expect(permission!.title).toContain("a.txt");
    expect(states(h.of(sessionId)).map((s) => s.state)).toEqual(["running", "requires_action", "running", "idle"]);
    const diff = h
      .of(sessionId)
      .flatMap((u) => (u.sessionUpdate === "tool_call_update" ? ((u.content ?? []) as Array<{ type: string }>) : []))
      .find((c) => c.type === "diff") as unknown as { changes: unknown; patch: { format: string; text: string } };
    expect(diff.changes).toEqual([{ operation: "modify", path: file }]);
    expect(diff.patch.format).toBe("git_patch");
    expect(diff.patch.text).toContain("-two\n+TWO\n");
  });

  it("holds a slash command sent during a turn until the turn is over, and session/cancel answers waiting prompts -32800", async () => {
    const h = await start();
    const { sessionId } = await h.newSession(project);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.model.setHandler(async (request) => {
      if (request.lastUserText.includes("first")) await gate;
      return textTurn(`answer to ${request.lastUserText}`);
    });
    await h.prompt(sessionId, "first");
    await pollUntil(() => h.model.requests.length === 1, "the first model request");
    let secondAt = -1;
    // A slash command never joins a running turn (not one we have: the model gets it, in its own turn).
    const second = h.prompt(sessionId, "/unknown-command second").then((r) => ((secondAt = h.updates.length), r));
    release();
    await second;
    const firstIdle = h.updates.findIndex((u) => u.sessionId === sessionId && isIdle(u.update));
    expect(firstIdle).toBeGreaterThanOrEqual(0);
    expect(secondAt).toBeGreaterThan(firstIdle);
    await h.idle(sessionId, 0, 2);

    // Cancel: the running turn ends cancelled, a prompt waiting to join it is answered -32800.
    h.model.setHandler(() => ({ parts: [{ type: "text", text: "working" }], hangAfterParts: true }));
    const mark = h.updates.length;
    await h.prompt(sessionId, "third");
    await pollUntil(() => h.model.requests.length === 3, "the third model request");
    const held = h.prompt(sessionId, "fourth").catch((error: { code: number }) => error.code);
    await h.agent.notify("session/cancel", { sessionId });
    expect(await held).toBe(-32800);
    await h.idle(sessionId, mark);
    expect(states(h.of(sessionId, mark)).at(-1)).toMatchObject({ state: "idle", stopReason: "cancelled" });
  });

  it("a prompt sent during a turn joins it after the tool call: acknowledged once inserted, one turn, replayed under its id", async () => {
    let allow!: () => void;
    const asked = new Promise<void>((resolve) => (allow = resolve));
    const h = await startV2Harness({
      home,
      onPermission: async (request) => {
        await asked;
        return {
          outcome: { outcome: "selected", optionId: request.options.find((o) => o.kind === "allow_once")!.optionId },
        };
      },
    });
    harnesses.push(h);
    const { sessionId } = await h.newSession(project);
    const file = join(project, "a.txt");
    await writeFile(file, "one\n");
    h.model.setHandler((request): FakeTurn =>
      request.messages.length === 1
        ? toolTurn("write_file", { file_path: file, content: "two\n" })
        : textTurn("did both"),
    );
    await h.prompt(sessionId, "do it");
    await h.waitFor(() => h.permissions.length === 1);
    let answeredAt = -1;
    const second = h.prompt(sessionId, "also say both").then((r) => ((answeredAt = h.updates.length), r));
    // Requests are taken in order: once this is answered the prompt above has been offered to the turn.
    await h.agent.request("session/status", { sessionId });
    allow();
    const { messageId } = await second;
    await h.idle(sessionId);
    // One turn: the model's second request has the tool's result and the joined message.
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.lastUserText).toBe("also say both");
    expect(h.model.requests[1]!.messages.some((m) => m.role === "tool")).toBe(true);
    const updates = h.of(sessionId);
    expect(states(updates).map((s) => s.state)).toEqual(["running", "requires_action", "running", "idle"]);
    // Its echo comes after the tool call ended and before the answer; the prompt is answered after the dialog.
    const echo = updates.findIndex((u) => u.sessionUpdate === "user_message_chunk" && u.messageId === messageId);
    const toolDone = updates.findIndex((u) => u.sessionUpdate === "tool_call_update" && u.status === "completed");
    const answer = updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
    expect(toolDone).toBeGreaterThanOrEqual(0);
    expect(echo).toBeGreaterThan(toolDone);
    expect(answer).toBeGreaterThan(echo);
    expect(updates[echo]).toMatchObject({ content: { type: "text", text: "also say both" } });
    expect(answeredAt).toBeGreaterThan(
      h.updates.findIndex(
        (u) => u.update.sessionUpdate === "state_update" && (u.update as { state: string }).state === "requires_action",
      ),
    );
    await h.close();
    harnesses.splice(0);

    const replay = await start();
    await replay.agent.request("session/resume", { sessionId, cwd: project, replayFrom: { type: "start" } });
    const replayed = replay.of(sessionId).filter((u) => u.sessionUpdate === "user_message_chunk");
    expect(replayed.map((u) => (u as { messageId: string }).messageId)).toContain(messageId);
  });

  it("resume replays from the start when asked, reports the state before answering, and refuses unknown cursors", async () => {
    const first = await start();
    const { sessionId } = await first.newSession(project);
    first.model.setHandler(() => textTurn("remembered"));
    const { messageId } = await first.prompt(sessionId, "remember this");
    await first.idle(sessionId);
    await first.close();
    harnesses.splice(0);

    const h = await start();
    const params = { sessionId, cwd: project };
    await h.agent.request("session/resume", { ...params, replayFrom: { type: "start" } });
    const replayed = h.of(sessionId);
    expect(replayed.find((u) => u.sessionUpdate === "user_message_chunk")).toMatchObject({ messageId });
    expect(replayed.some((u) => u.sessionUpdate === "agent_message_chunk")).toBe(true);
    // The state snapshot comes after the replay, before the answer.
    expect(replayed.findLastIndex((u) => u.sessionUpdate === "state_update")).toBeGreaterThan(
      replayed.findLastIndex((u) => u.sessionUpdate === "agent_message_chunk"),
    );
    expect(states(replayed).at(-1)).toMatchObject({ state: "idle", background: [] });

    const mark = h.updates.length;
    await h.agent.request("session/resume", params);
    // No replay: the state snapshot only (the command list follows the answer).
    const resumed = h.of(sessionId, mark).filter((u) => u.sessionUpdate !== "available_commands_update");
    expect(resumed.map((u) => u.sessionUpdate)).toEqual(["state_update"]);
    await expect(
      h.agent.request("session/resume", { ...params, replayFrom: { type: "_later" } as never }),
    ).rejects.toMatchObject({ code: -32602 });
  });

  it("lists a background process as background work by its terminal until it exits", async () => {
    const h = await start();
    const { sessionId } = await h.newSession(project);
    await h.agent.request("session/set_config_option", { sessionId, configId: "mode", type: "id", value: "bypass" });
    const marker = join(project, "go");
    h.model.setHandler((request): FakeTurn =>
      request.messages.length === 1
        ? toolTurn("execute", {
            command: `echo started; while [ ! -f ${marker} ]; do sleep 0.05; done; echo done`,
            background: true,
          })
        : textTurn("it runs"),
    );
    await h.prompt(sessionId, "start it");
    await h.idle(sessionId);
    const idle = states(h.of(sessionId)).at(-1) as unknown as {
      background: Array<{ type: string; terminalId: string }>;
    };
    expect(idle.background).toHaveLength(1);
    const terminalId = idle.background[0]!.terminalId;
    expect(h.of(sessionId).find((u) => u.sessionUpdate === "terminal_update")).toMatchObject({ terminalId });
    await writeFile(marker, "");
    await h.waitFor(() =>
      h.of(sessionId).some((u) => u.sessionUpdate === "terminal_update" && "exitStatus" in u && u.exitStatus),
    );
    await h.waitFor(
      () => (states(h.of(sessionId)).at(-1) as unknown as { background: unknown[] }).background.length === 0,
    );
    const output = h
      .of(sessionId)
      .filter((u) => u.sessionUpdate === "terminal_output_chunk")
      .map((u) => Buffer.from((u as { data: string }).data, "base64").toString())
      .join("");
    expect(output).toContain("started");
  });

  it("every subagent is a child session, with its own state updates (requires_action while its dialog waits)", async () => {
    const h = await start();
    const { sessionId } = await h.newSession(project);
    h.model.setHandler((request): FakeTurn => {
      if (request.system.includes("You are a subagent"))
        return request.messages.length === 1 ? toolTurn("execute", { command: "echo hi" }) : textTurn("child answer");
      return request.messages.length === 1
        ? toolTurn("task", { description: "look around", subagent_type: "general-purpose" })
        : textTurn("parent answer");
    });
    await h.prompt(sessionId, "delegate");
    await h.idle(sessionId);
    const announce = h.of(sessionId).find((u) => u.sessionUpdate === "subagent_update") as { sessionId: string };
    const child = h.of(announce.sessionId);
    expect(child.find((u) => u.sessionUpdate === "session_message")).toMatchObject({ senderSessionId: sessionId });
    expect(h.permissions.map((p) => p.sessionId)).toEqual([announce.sessionId]);
    expect(states(child).map((s) => [s.state, s.stopReason])).toEqual([
      ["running", undefined],
      ["requires_action", undefined],
      ["running", undefined],
      ["idle", "end_turn"],
    ]);
  });
});
