// The v2 draft's rewind (RFD "Session Rewind: truncate and edit history", spec PR #1321) through the
// built binary on stdio: session/rewind keeps history through a message and the next prompt sees
// only that; session/edit_prompt replaces a user message and re-runs it through v2's prompt
// lifecycle; both send `history_truncated`; session/load replays the truncated session; a bad id or
// a bad block is refused with the draft's error and loses nothing; v1 clients are offered none of it.
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import type { AgentProcess } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";

const suite = useAgentSuite({ name: "v2-rewind" });

/** The model answers each prompt with "reply to <its text>". */
const echoModel = () => suite.model.setHandler((request) => textTurn(`reply to ${request.lastUserText}`));

async function startV2() {
  const agent = await suite.start();
  const init = await agent.request("initialize", {
    protocolVersion: 2,
    info: { name: "e2e-v2", version: "1.0.0" },
    capabilities: {},
  });
  const { sessionId } = (await agent.request("session/new", { cwd: suite.project })).result;
  return { agent, init, sessionId };
}

const idleCount = (agent: AgentProcess, sessionId: string) =>
  agent.updates(sessionId).filter((u) => u.sessionUpdate === "state_update" && u.state === "idle").length;

/** One prompt to its idle state: the user message's id and the id of the agent's reply. */
async function turn(agent: AgentProcess, sessionId: string, text: string) {
  const before = idleCount(agent, sessionId);
  const from = agent.updates(sessionId).length;
  const { result } = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
  await pollUntil(() => idleCount(agent, sessionId) > before, `the idle state after "${text}"`);
  const reply = agent
    .updates(sessionId)
    .slice(from)
    .find((u) => u.sessionUpdate === "agent_message_chunk");
  return { userId: result.messageId as string, replyId: reply.messageId as string };
}

/** What the model was sent last, as "role: text" lines. */
const lastSent = () => suite.model.requests.at(-1)!.messages.map((m) => `${m.role}: ${m.text}`);

it("offers session.rewind to v2 clients only; session/rewind keeps history through a message, the next prompt sees only that", async () => {
  const v1 = await suite.start();
  const v1Init = await v1.initialize();
  expect(JSON.stringify(v1Init.result)).not.toContain('rewind"');
  expect((await v1.request("session/rewind", { sessionId: "s", toMessageId: "m" })).error?.code).toBe(-32601);

  echoModel();
  const { agent, init, sessionId } = await startV2();
  expect(init.result.capabilities.session.rewind).toEqual({ edit_prompt: true });
  const first = await turn(agent, sessionId, "first");
  await turn(agent, sessionId, "second");
  await turn(agent, sessionId, "third");

  const from = agent.updates(sessionId).length;
  const rewound = await agent.request("session/rewind", { sessionId, toMessageId: first.replyId });
  expect(rewound.result).toEqual({ lastMessageId: first.replyId });
  expect(agent.updates(sessionId).slice(from)).toContainEqual({
    sessionUpdate: "history_truncated",
    lastMessageId: first.replyId,
  });

  await turn(agent, sessionId, "fourth");
  expect(lastSent()).toEqual(["user: first", "assistant: reply to first", "user: fourth"]);
});

it("session/edit_prompt cuts before the user message, inserts the new content as a new message and re-runs it", async () => {
  echoModel();
  const { agent, sessionId } = await startV2();
  const first = await turn(agent, sessionId, "first");
  const second = await turn(agent, sessionId, "second");
  await turn(agent, sessionId, "third");

  const from = agent.updates(sessionId).length;
  const idle = idleCount(agent, sessionId);
  const content = [{ type: "text", text: "second, edited" }];
  const edited = await agent.request("session/edit_prompt", { sessionId, messageId: second.userId, content });
  expect(edited.result.messageId).toEqual(expect.any(String));
  expect(edited.result.messageId).not.toBe(second.userId);
  await pollUntil(() => idleCount(agent, sessionId) > idle, "the re-run's idle state");

  const updates = agent.updates(sessionId).slice(from);
  const kinds = updates
    .filter((u) => ["history_truncated", "user_message", "state_update"].includes(u.sessionUpdate))
    .map((u) => (u.sessionUpdate === "state_update" ? `state ${u.state}` : u.sessionUpdate));
  // The truncation first, then the prompt lifecycle exactly as session/prompt runs it.
  expect(kinds).toEqual(["history_truncated", "state running", "user_message", "state idle"]);
  expect(updates[0]).toEqual({ sessionUpdate: "history_truncated", lastMessageId: first.replyId });
  expect(updates.find((u) => u.sessionUpdate === "user_message")).toMatchObject({
    messageId: edited.result.messageId,
    content,
  });
  expect(lastSent()).toEqual(["user: first", "assistant: reply to first", "user: second, edited"]);

  // Editing the first message leaves nothing before it: the truncation names no message.
  const again = agent.updates(sessionId).length;
  const idleAgain = idleCount(agent, sessionId);
  const replaced = [{ type: "text", text: "only this" }];
  await agent.request("session/edit_prompt", { sessionId, messageId: first.userId, content: replaced });
  await pollUntil(() => idleCount(agent, sessionId) > idleAgain, "the second re-run's idle state");
  expect(agent.updates(sessionId).slice(again)[0]).toEqual({ sessionUpdate: "history_truncated", lastMessageId: null });
  expect(lastSent()).toEqual(["user: only this"]);
});

it("a rewind while a turn runs cancels it first: its idle state, then the truncation", async () => {
  const { agent, sessionId } = await startV2();
  suite.model.setHandler(() => textTurn("done"));
  const first = await turn(agent, sessionId, "first");
  suite.model.setHandler(() => ({ ...textTurn("working on it"), hangAfterParts: true }));
  const from = agent.updates(sessionId).length;
  await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "long one" }] });
  await pollUntil(
    () =>
      agent
        .updates(sessionId)
        .slice(from)
        .some((u) => u.sessionUpdate === "agent_message_chunk"),
    "the running turn's text",
  );
  const rewound = await agent.request("session/rewind", { sessionId, toMessageId: first.userId });
  expect(rewound.result).toEqual({ lastMessageId: first.userId });
  const after = agent.updates(sessionId).slice(from);
  const idleAt = after.findIndex((u) => u.sessionUpdate === "state_update" && u.state === "idle");
  expect(after[idleAt]).toMatchObject({ stopReason: "cancelled" });
  expect(after.findIndex((u) => u.sessionUpdate === "history_truncated")).toBeGreaterThan(idleAt);
});

it("session/load after a rewind replays the truncated history only", async () => {
  echoModel();
  const { agent, sessionId } = await startV2();
  const first = await turn(agent, sessionId, "first");
  await turn(agent, sessionId, "second");
  await agent.request("session/rewind", { sessionId, toMessageId: first.replyId });
  await agent.stop();

  const v1 = await suite.start();
  await v1.initialize();
  const loaded = await v1.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
  expect(loaded.error).toBeUndefined();
  const text = (kind: string) =>
    v1
      .updates(sessionId)
      .filter((u) => u.sessionUpdate === kind)
      .map((u) => u.content.text)
      .join("");
  expect(text("user_message_chunk")).toBe("first");
  expect(text("agent_message_chunk")).toBe("reply to first");
});

it("refuses an unknown id, an edit of a reply and a bad block with the draft's errors, and loses nothing", async () => {
  echoModel();
  const { agent, sessionId } = await startV2();
  const first = await turn(agent, sessionId, "first");
  await turn(agent, sessionId, "second");
  const sent = suite.model.requests.length;

  const unknown = await agent.request("session/rewind", { sessionId, toMessageId: "no-such-message" });
  expect(unknown.error).toMatchObject({ code: -32002, data: { reason: "unknown_message_id" } });
  const unknownEdit = await agent.request("session/edit_prompt", {
    sessionId,
    messageId: "no-such-message",
    content: [{ type: "text", text: "x" }],
  });
  expect(unknownEdit.error).toMatchObject({ code: -32002, data: { reason: "unknown_message_id" } });
  const reply = await agent.request("session/edit_prompt", {
    sessionId,
    messageId: first.replyId,
    content: [{ type: "text", text: "x" }],
  });
  expect(reply.error).toMatchObject({ code: -32602, data: { reason: "not_a_user_message" } });
  const badBlock = await agent.request("session/edit_prompt", {
    sessionId,
    messageId: first.userId,
    content: [{ type: "picture", url: "x" }],
  });
  expect(badBlock.error?.code).toBe(-32602);
  const otherSession = await agent.request("session/rewind", { sessionId: "not-open", toMessageId: first.userId });
  expect(otherSession.error?.code).toBe(-32002);

  expect(agent.updates(sessionId).some((u) => u.sessionUpdate === "history_truncated")).toBe(false);
  expect(suite.model.requests).toHaveLength(sent);
  await turn(agent, sessionId, "third");
  expect(lastSent()).toEqual([
    "user: first",
    "assistant: reply to first",
    "user: second",
    "assistant: reply to second",
    "user: third",
  ]);
});

it("leaves the files alone, as the draft says (our _deep-acp/session/rewind is the one that restores them)", async () => {
  const { agent, sessionId } = await startV2();
  const file = join(suite.project, "a.txt");
  await writeFile(file, "one\n");
  suite.model.enqueue(
    toolTurn("edit_file", { file_path: file, old_string: "one", new_string: "two" }),
    textTurn("Edited."),
  );
  const edit = await turn(agent, sessionId, "change one to two");
  expect(await readFile(file, "utf8")).toBe("two\n");
  const rewound = await agent.request("session/edit_prompt", {
    sessionId,
    messageId: edit.userId,
    content: [{ type: "text", text: "never mind" }],
  });
  expect(rewound.error).toBeUndefined();
  await pollUntil(() => suite.model.requests.length === 3, "the re-run's model request");
  expect(lastSent()).toEqual(["user: never mind"]);
  expect(await readFile(file, "utf8")).toBe("two\n");
});

it("a rewind through a reply that called a tool keeps the call answered, so the next request is well formed", async () => {
  const { agent, sessionId } = await startV2();
  await writeFile(join(suite.project, "notes.txt"), "hello\n");
  suite.model.enqueue(
    {
      parts: [
        { type: "text", text: "Let me look." },
        { type: "tool_call", name: "read_file", input: { file_path: join(suite.project, "notes.txt") } },
      ],
    },
    textTurn("It says hello."),
  );
  const looked = await turn(agent, sessionId, "what is in notes.txt?");
  const rewound = await agent.request("session/rewind", { sessionId, toMessageId: looked.replyId });
  expect(rewound.result).toEqual({ lastMessageId: looked.replyId });
  suite.model.enqueue(textTurn("ok"));
  await turn(agent, sessionId, "never mind");
  const sent = suite.model.requests.at(-1)!.messages;
  expect(sent.map((m) => m.role)).toEqual(["user", "assistant", "tool", "user"]);
  expect(sent[1]!.toolCalls?.[0]?.name).toBe("read_file");
  expect(sent[2]!.toolCallId).toBe(sent[1]!.toolCalls?.[0]?.id);
  expect(JSON.stringify(sent)).not.toContain("It says hello.");
});
