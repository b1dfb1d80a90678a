// v2's idempotencyKey on session/prompt: a retried prompt (same key, same session) is inserted once
// and answered with the original's messageId, also while the original is still held behind a turn.
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "../support/acp-v2-harness.js";
import { textTurn } from "../support/fake-model/index.js";
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
  project = await mkdtemp(join(tmpdir(), "deep-acp-v2-idem-project-"));
  home = await mkdtemp(join(tmpdir(), "deep-acp-v2-idem-home-"));
  await mkdir(join(project, ".git"));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await rm(project, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

/** A prompt carrying `idempotencyKey` (the SDK 2.4.0 v2 schema has no such field; it goes as written). */
const keyed = (h: V2Harness, sessionId: string, text: string, idempotencyKey: string) =>
  h.agent.request(v2.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text }],
    idempotencyKey,
  } as v2.PromptRequest);

const userMessages = (h: V2Harness, sessionId: string) =>
  h.of(sessionId).filter((u) => u.sessionUpdate === "user_message") as Array<{ messageId: string }>;

describe("ACP v2 idempotencyKey", () => {
  it("a retry after the answer is not inserted again: same messageId, one model request, one user message", async () => {
    const h = await start();
    const { sessionId } = await h.newSession(project);
    h.model.setHandler(() => textTurn("once"));
    const first = await keyed(h, sessionId, "do it", "key-1");
    await h.idle(sessionId);
    const retry = await keyed(h, sessionId, "do it", "key-1");
    expect(retry).toEqual(first);
    // Another key, and no key, are new prompts.
    const other = await keyed(h, sessionId, "do it", "key-2");
    await h.idle(sessionId, 0, 2);
    expect(other.messageId).not.toBe(first.messageId);
    await h.prompt(sessionId, "plain");
    await h.idle(sessionId, 0, 3);
    expect(h.model.requests).toHaveLength(3);
    expect(userMessages(h, sessionId).map((u) => u.messageId)).toHaveLength(3);
  });

  it("a retry while the original is held behind a running turn waits for it and gets its messageId", async () => {
    const h = await start();
    const { sessionId } = await h.newSession(project);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    h.model.setHandler(async (request) => {
      if (request.lastUserText === "first") await gate;
      return textTurn(`answer to ${request.lastUserText}`);
    });
    await h.prompt(sessionId, "first");
    await pollUntil(() => h.model.requests.length === 1, "the first model request");
    // A slash command is held until the turn is over (it never joins a turn).
    const held = keyed(h, sessionId, "/unknown-command later", "key-held");
    const retried = keyed(h, sessionId, "/unknown-command later", "key-held");
    await h.agent.request(v2.methods.agent.session.status, { sessionId });
    release();
    const [a, b] = await Promise.all([held, retried]);
    expect(b).toEqual(a);
    await h.idle(sessionId, 0, 2);
    expect(h.model.requests).toHaveLength(2);
    expect(userMessages(h, sessionId).map((u) => u.messageId)).toEqual([expect.any(String), a.messageId]);
  });

  it("keys belong to their session, and a prompt that was not inserted leaves no key behind", async () => {
    const h = await start();
    const one = await h.newSession(project);
    const two = await h.newSession(project);
    h.model.setHandler(() => textTurn("ok"));
    const a = await keyed(h, one.sessionId, "hi", "shared");
    const b = await keyed(h, two.sessionId, "hi", "shared");
    expect(b.messageId).not.toBe(a.messageId);
    await h.idle(one.sessionId);
    await h.idle(two.sessionId);

    // Held behind a turn, then cancelled: answered -32800, not inserted; its retry is inserted.
    h.model.setHandler(() => ({ parts: [{ type: "text", text: "working" }], hangAfterParts: true }));
    await h.prompt(one.sessionId, "long");
    await pollUntil(() => h.model.requests.length === 3, "the long turn's model request");
    const cancelled = keyed(h, one.sessionId, "/unknown-command x", "k").catch((e: { code: number }) => e.code);
    await h.agent.request(v2.methods.agent.session.status, { sessionId: one.sessionId });
    await h.agent.notify(v2.methods.agent.session.cancel, { sessionId: one.sessionId });
    expect(await cancelled).toBe(-32800);
    await h.idle(one.sessionId, 0, 2);
    h.model.setHandler(() => textTurn("now"));
    const again = await keyed(h, one.sessionId, "/unknown-command x", "k");
    await h.idle(one.sessionId, 0, 3);
    expect(userMessages(h, one.sessionId).at(-1)?.messageId).toBe(again.messageId);
  });
});
