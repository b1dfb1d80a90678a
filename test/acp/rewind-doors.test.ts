// One rewind, several doors: our `_deep-acp/session/rewind`, and JetBrains' `_session/rewind`
// (claude-agent-acp PR #1126, codex-acp PR #508), offered only to a client that lists
// `sessionRewind` under `_meta.jetbrains.air` (the versioned AIR extension, as codex-acp's
// src/AirExtension.ts declares it).
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { createHash } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Harness } from "../support/acp-harness.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { useHarnessSuite } from "../support/harness-suite.js";

const suite = useHarnessSuite({ name: "rewind-doors" });
const AIR: acp.ClientCapabilities = { _meta: { jetbrains: { air: { version: 1, capabilities: ["sessionRewind"] } } } };
const PROMPT = "Change one to two";
const fingerprint = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** One prompt that edits a.txt; the user message's id as the prompt response names it. */
async function editOnce(h: Harness) {
  await writeFile(join(suite.project, "a.txt"), "one\n");
  const { sessionId } = await h.newSession(suite.project);
  await h.agent.request("session/set_mode", { sessionId, modeId: "accept-edits" });
  h.model.enqueue(
    toolTurn("edit_file", { file_path: join(suite.project, "a.txt"), old_string: "one", new_string: "two" }),
    textTurn("Edited."),
  );
  const { response } = await h.prompt(sessionId, PROMPT);
  const messageId = (response._meta as { "deep-acp": { userMessageId: string } })["deep-acp"].userMessageId;
  expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("two\n");
  return { sessionId, messageId };
}

describe("JetBrains' _session/rewind", () => {
  it("is listed for a client that lists it, and rewinds a message pinned by its fingerprint", async () => {
    const h = await suite.start({ clientCapabilities: AIR });
    expect(h.init._meta?.jetbrains).toEqual({ air: { version: 1, capabilities: ["sessionRewind"] } });
    const { sessionId, messageId } = await editOnce(h);
    const wrong = { messageId, messageFingerprint: fingerprint("something else"), messageOccurrence: 1 };
    await expect(h.agent.request("_session/rewind", { sessionId, beforeMessage: wrong })).rejects.toMatchObject({
      code: -32602,
    });
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("two\n");
    const beforeMessage = { messageId, messageFingerprint: fingerprint(PROMPT), messageOccurrence: 1 };
    expect(await h.agent.request("_session/rewind", { sessionId, beforeMessage })).toEqual({ rewound: true });
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("one\n");
    h.model.enqueue(textTurn("fresh"));
    await h.prompt(sessionId, "after the rewind");
    expect(JSON.stringify(h.model.requests.at(-1)!.body)).not.toContain(PROMPT);
  });

  it("is neither listed nor answered for a client that does not list it", async () => {
    const h = await suite.start();
    expect(h.init._meta?.jetbrains).toBeUndefined();
    const { sessionId, messageId } = await editOnce(h);
    await expect(h.agent.request("_session/rewind", { sessionId, beforeMessage: { messageId } })).rejects.toMatchObject(
      { code: -32601 },
    );
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("two\n");
  });
});

describe("JetBrains' _session/rewind with resumeAtMessage", () => {
  /** Two prompts answered "reply to <text>": each user message's id and its reply's id. */
  async function twoTurns(h: Harness, texts: [string, string]) {
    const { sessionId } = await h.newSession(suite.project);
    const turns = [];
    for (const text of texts) {
      h.model.enqueue(textTurn(`reply to ${text}`));
      const { response, updates } = await h.prompt(sessionId, text);
      const userId = (response._meta as { "deep-acp": { userMessageId: string } })["deep-acp"].userMessageId;
      const chunk = updates.find((u) => u.sessionUpdate === "agent_message_chunk") as { messageId: string };
      turns.push({ text, userId, replyId: chunk.messageId });
    }
    return { sessionId, turns };
  }
  const point = (messageId: string, text: string, messageOccurrence = 1) => ({
    messageId,
    messageFingerprint: fingerprint(text),
    messageOccurrence,
  });
  const lastSent = (h: Harness) => h.model.requests.at(-1)!.messages.map((m) => `${m.role}: ${m.text}`);

  it("keeps history through the reply it names and refuses one that is not the last reply kept", async () => {
    const h = await suite.start({ clientCapabilities: AIR });
    const { sessionId, turns } = await twoTurns(h, ["first", "second"]);
    const [first, second] = turns as [(typeof turns)[0], (typeof turns)[0]];
    const beforeMessage = point(second.userId, "second");
    for (const resumeAtMessage of [
      point(second.replyId, "reply to second"), // a reply the rewind removes
      point(first.replyId, "reply to something else"), // the right id with another text
    ])
      await expect(
        h.agent.request("_session/rewind", { sessionId, beforeMessage, resumeAtMessage }),
      ).rejects.toMatchObject({ code: -32602 });
    h.model.enqueue(textTurn("still here"));
    await h.prompt(sessionId, "nothing lost");
    expect(lastSent(h)).toContain("user: second");

    const resumeAtMessage = point(first.replyId, "reply to first");
    expect(await h.agent.request("_session/rewind", { sessionId, beforeMessage, resumeAtMessage })).toEqual({
      rewound: true,
    });
    h.model.enqueue(textTurn("fresh"));
    await h.prompt(sessionId, "again");
    expect(lastSent(h)).toEqual(["user: first", "assistant: reply to first", "user: again"]);
  });

  it("finds a message by its fingerprint's occurrence when the client's ids are not ours", async () => {
    const h = await suite.start({ clientCapabilities: AIR });
    const { sessionId, turns } = await twoTurns(h, ["same", "same"]);
    const beforeMessage = point("client-side-id", "same", 2);
    const resumeAtMessage = point("client-side-reply", "reply to same", 1);
    expect(await h.agent.request("_session/rewind", { sessionId, beforeMessage, resumeAtMessage })).toEqual({
      rewound: true,
    });
    h.model.enqueue(textTurn("fresh"));
    await h.prompt(sessionId, "next");
    expect(lastSent(h)).toEqual(["user: same", "assistant: reply to same", "user: next"]);
    expect(turns).toHaveLength(2);
  });
});
