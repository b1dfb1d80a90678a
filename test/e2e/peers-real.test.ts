// The real agents from npm as subagents (installed in test/clients/, run with its Node >= 22), each
// pointed at the fake model through its own base-URL setting: Gemini CLI (`--experimental-acp`),
// claude-agent-acp and codex-acp. Each gets a task from the parent and answers it; what each does
// with its edits is what README.md says: Gemini writes through our fs (so our gate decides), the
// other two use their own tools (outside our gate; only their permission questions reach us, and
// peers-real-gate.test.ts shows what our door decides of those).
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";
import { claudeAgent, codexAgent, geminiAgent, missing } from "../support/real-peers.js";

const suite = usePeerSuite();

const gemini = missing("@google/gemini-cli", "gemini");
describe.skipIf(gemini)(`Gemini CLI as a subagent${gemini ? ` (skipped: ${gemini})` : ""}`, () => {
  async function start(capabilities: acp.ClientCapabilities) {
    return suite.start(capabilities, { config: await geminiAgent(suite) });
  }

  for (const [label, capabilities] of [
    ["with subagents", { subagents: {} }],
    ["without subagents", {}],
  ] as const) {
    it(`writes through our gate, asks through our door, and answers (${label})`, async () => {
      const { h, sessionId } = await start(capabilities as acp.ClientCapabilities);
      // Existing files: Gemini checks a file through fs/read_text_file first and takes any error
      // (ours is ACP's "resource not found") as a failure, so it cannot create new files through an editor.
      await writeFile(join(suite.project, "hello.txt"), "old");
      await writeFile(join(suite.project, "locked", "no.txt"), "keep");
      parentDelegates(h, "gemini", "write hello.txt");
      suite.childModel.setHandler((request: RecordedRequest) => {
        const done = toolResults(request).length;
        if (done === 0)
          return toolTurn("write_file", { file_path: join(suite.project, "hello.txt"), content: "from gemini" });
        if (done === 1)
          return toolTurn("write_file", { file_path: join(suite.project, "locked", "no.txt"), content: "no" });
        return textTurn("gemini wrote hello.txt");
      });
      const { response } = await h.prompt(sessionId, "delegate to gemini");
      expect(response.stopReason).toBe("end_turn");
      expect(await readFile(join(suite.project, "hello.txt"), "utf8")).toBe("from gemini");
      expect(await readFile(join(suite.project, "locked", "no.txt"), "utf8")).toBe("keep");
      // Gemini's own question, relayed and titled with its name, then our gate's own dialog for the write.
      expect(h.permissions.map((p) => p.toolCall.title)).toEqual(
        expect.arrayContaining(["gemini: Writing to hello.txt", "hello.txt"]),
      );
      // The denied path: Gemini was told its write failed (it words our error as "[object Object]").
      const [, denied] = toolResults(suite.childModel.requests.at(-1)!);
      expect(denied!.isError).toBe(true);
      expect(taskResult(h).text).toContain("gemini wrote hello.txt");
    }, 120_000);
  }
});

describe.skipIf(gemini)(`Gemini CLI's commands${gemini ? ` (skipped: ${gemini})` : ""}`, () => {
  it("asks before a command through our door, then runs it with its own shell, outside our gate", async () => {
    const config = await geminiAgent(suite);
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    parentDelegates(h, "gemini", "run a command");
    suite.childModel.setHandler((request: RecordedRequest) =>
      toolResults(request).length === 0
        ? toolTurn("run_shell_command", { command: "echo from-gemini > g.txt", description: "write g.txt" })
        : textTurn("gemini ran it"),
    );
    await h.prompt(sessionId, "delegate a command to gemini");
    // Its question came to the editor, titled with its name; the user's answer let it run.
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["gemini: echo from-gemini > g.txt"]);
    expect(await readFile(join(suite.project, "g.txt"), "utf8")).toBe("from-gemini\n");
    // It ran the command itself: no terminal/create (no execute call of ours) reached deep-acp.
    const ours = h.updates.filter(
      (n) => "toolCallId" in n.update && String(n.update.toolCallId).includes("/deep-acp-"),
    );
    expect(ours).toEqual([]);
    expect(taskResult(h).text).toContain("gemini ran it");
  }, 120_000);
});

/** A plain-text answer from the fake model, whatever the child asks first (titles, summaries). */
const answer = (text: string) => () => textTurn(text);

const claude = missing("@agentclientprotocol/claude-agent-acp", "claude-agent-acp");
describe.skipIf(claude)(`claude-agent-acp as a subagent${claude ? ` (skipped: ${claude})` : ""}`, () => {
  it("answers a task on the fake model", async () => {
    const config = await claudeAgent(suite);
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    parentDelegates(h, "claude", "say hello");
    suite.childModel.setHandler(answer("claude says hello"));
    const { response } = await h.prompt(sessionId, "delegate to claude");
    expect(response.stopReason).toBe("end_turn");
    // claude-agent-acp may add notices of its own after the answer.
    expect(taskResult(h).isError).toBe(false);
    expect(taskResult(h).text).toMatch(/^claude says hello/);
    expect(suite.childModel.requests.some((r) => r.path.endsWith("/v1/messages"))).toBe(true);
  }, 120_000);
  it("with gate_tools = false, in its own default (auto) mode, edits unasked with its own Write: a denied path is written", async () => {
    const config = await claudeAgent(suite, "gate_tools = false\n");
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    parentDelegates(h, "claude", "write a file");
    suite.childModel.setHandler((request: RecordedRequest) =>
      toolResults(request).length === 0 && request.toolNames.includes("Write")
        ? toolTurn("Write", { file_path: join(suite.project, "locked", "claude.txt"), content: "by claude" })
        : textTurn("claude wrote it"),
    );
    const { response } = await h.prompt(sessionId, "delegate an edit to claude");
    expect(response.stopReason).toBe("end_turn");
    // What README.md and /agents warn of: given its own tools back (`gate_tools = false`) and without
    // `mode = "default"`, claude-agent-acp starts in its auto mode, asks nobody, and wrote with its own
    // tool into locked/ (denied by our rules); no fs/write_text_file (no write_file call of ours) and no
    // question came to deep-acp.
    expect(await readFile(join(suite.project, "locked", "claude.txt"), "utf8")).toBe("by claude");
    expect(h.permissions).toEqual([]);
    const ours = h.updates.filter(
      (n) => "toolCallId" in n.update && String(n.update.toolCallId).includes("/deep-acp-"),
    );
    expect(ours).toEqual([]);
    expect(taskResult(h).text).toContain("claude wrote it");
  }, 120_000);
});

const codex = missing("@zed-industries/codex-acp", "codex-acp");
describe.skipIf(codex)(`codex-acp as a subagent${codex ? ` (skipped: ${codex})` : ""}`, () => {
  it("answers a task on the fake model (its own tools, not ours, would do its edits)", async () => {
    const config = await codexAgent(suite);
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    parentDelegates(h, "codex", "say hello");
    suite.childModel.setHandler(answer("codex says hello"));
    const { response } = await h.prompt(sessionId, "delegate to codex");
    expect(response.stopReason).toBe("end_turn");
    // codex-acp may say something of its own first (a model metadata warning on a fake model's name).
    expect(taskResult(h).isError).toBe(false);
    expect(taskResult(h).text).toMatch(/codex says hello$/);
  }, 120_000);
});
