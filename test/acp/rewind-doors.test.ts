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
