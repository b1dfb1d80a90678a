// The v2 draft's rewind in process, every message the agent sends checked against the SDK's v2
// schema and, for what the SDK does not have yet, the RFD's shapes (test/support/rewind-draft-schema.ts).
// The behaviour itself is tested through the built binary in test/e2e/v2-rewind.test.ts.
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { startV2Harness, type V2Harness } from "../support/acp-v2-harness.js";
import { textTurn } from "../support/fake-model/index.js";

let project: string;
let h: V2Harness | undefined;
beforeEach(async () => {
  project = await mkdtemp(join(tmpdir(), "deep-acp-v2-rewind-"));
});
afterEach(async () => {
  await h?.close(); // fails on any message that breaks the schema
  h = undefined;
  await rm(project, { recursive: true, force: true });
});

it("sends the draft's shapes: history_truncated and both responses", async () => {
  h = await startV2Harness();
  // (The SDK's client parser drops the capability's unknown key; the raw answer is read in test/e2e.)
  const { sessionId } = await h.newSession(project);
  h.model.setHandler((request) => textTurn(`reply to ${request.lastUserText}`));
  const { messageId: first } = await h.prompt(sessionId, "first");
  await h.idle(sessionId);
  const { messageId: second } = await h.prompt(sessionId, "second");
  await h.idle(sessionId, 0, 2);

  const rewind = { sessionId, toMessageId: second };
  expect(await h.agent.request("session/rewind", rewind)).toEqual({ lastMessageId: second });
  const content: v2.ContentBlock[] = [{ type: "text", text: "first, edited" }];
  const edit = { sessionId, messageId: first, content };
  const edited = (await h.agent.request("session/edit_prompt", edit)) as v2.PromptResponse;
  await h.idle(sessionId, 0, 3);
  const truncations = h.of(sessionId).filter((u) => (u.sessionUpdate as string) === "history_truncated");
  expect(truncations).toEqual([
    { sessionUpdate: "history_truncated", lastMessageId: second },
    { sessionUpdate: "history_truncated", lastMessageId: null },
  ]);
  const echoes = h.of(sessionId).filter((u) => u.sessionUpdate === "user_message");
  expect(echoes.at(-1)).toMatchObject({ messageId: edited.messageId, content });
  expect(h.model.requests.at(-1)!.messages.map((m) => m.text)).toEqual(["first, edited"]);
  expect(h.schema.checked).toBeGreaterThan(0);
});
