// What our gate still decides for the real claude-agent-acp given its own tools back
// (`gate_tools = false`; by default it gets ours, peers-real-gate-tools.test.ts) and codex-acp, which edit and run
// commands with their own tools (neither sends fs/* or terminal/*; README "Other ACP agents as
// subagents" says why): each asks before a change when its mode says so, and that question comes to
// us. Our door answers it for our file rules first (a denied path is refused, unasked, and the
// child's model reads the refusal), else shows it in the editor and sends the user's answer back.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";
import { claudeAgent, codexAgent, missing } from "../support/real-peers.js";

const suite = usePeerSuite();
const CLIENTS = [
  ["with subagents", { subagents: {} }],
  ["without subagents", {}],
] as const;

const claude = missing("@agentclientprotocol/claude-agent-acp", "claude-agent-acp");
describe.skipIf(claude)(`claude-agent-acp under our gate${claude ? ` (skipped: ${claude})` : ""}`, () => {
  for (const [label, capabilities] of CLIENTS) {
    it(`with its own tools (gate_tools = false) in its default mode asks before a Write: asked in the editor, a denied path refused (${label})`, async () => {
      const config = await claudeAgent(suite, 'mode = "default"\ngate_tools = false\n');
      const { h, sessionId } = await suite.start(capabilities as acp.ClientCapabilities, { config });
      parentDelegates(h, "claude", "write two files");
      suite.childModel.setHandler((request: RecordedRequest) => {
        if (!request.toolNames.includes("Write")) return textTurn("title");
        const done = toolResults(request).length;
        if (done === 0) return toolTurn("Write", { file_path: join(suite.project, "hello.txt"), content: "by claude" });
        if (done === 1)
          return toolTurn("Write", { file_path: join(suite.project, "locked", "claude.txt"), content: "no" });
        return textTurn("claude wrote hello.txt");
      });
      const { response } = await h.prompt(sessionId, "delegate two edits to claude");
      expect(response.stopReason).toBe("end_turn");
      // The allowed write: claude's question in the editor, titled with its name, with its diff; the
      // user's yes let it write (with its own tool: our write_file never ran).
      expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["claude: Write hello.txt"]);
      expect(h.permissions[0]!.toolCall.content).toEqual(
        expect.arrayContaining([expect.objectContaining({ type: "diff", newText: "by claude" })]),
      );
      expect(await readFile(join(suite.project, "hello.txt"), "utf8")).toBe("by claude");
      const ours = h.updates.filter(
        (n) => "toolCallId" in n.update && String(n.update.toolCallId).includes("/deep-acp-"),
      );
      expect(ours).toEqual([]);
      // The denied one: refused by our rules without a dialog; claude's model was told.
      expect(existsSync(join(suite.project, "locked", "claude.txt"))).toBe(false);
      const [, refused] = toolResults(suite.childModel.requests.at(-1)!);
      expect(refused).toMatchObject({ isError: true, text: "User refused permission to run tool" });
      expect(taskResult(h).text).toContain("claude wrote hello.txt");
    }, 120_000);
  }
});

/** codex's own way to edit without an apply_patch tool of its model's: apply_patch in exec_command, which it turns into a patch. */
const patch = (path: string, line: string) =>
  toolTurn("exec_command", {
    cmd: `apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: ${path}\n+${line}\n*** End Patch\nEOF\n`,
  });
// Untrusted: codex asks before every patch and every command not on its list of safe ones.
const CODEX_ASKS = ['approval_policy = "untrusted"', 'sandbox_mode = "workspace-write"'];

const codex = missing("@zed-industries/codex-acp", "codex-acp");
describe.skipIf(codex)(`codex-acp under our gate${codex ? ` (skipped: ${codex})` : ""}`, () => {
  for (const [label, capabilities] of CLIENTS) {
    it(`asks before its patch and its command, in the editor, then does both itself (${label})`, async () => {
      const config = await codexAgent(suite, CODEX_ASKS);
      const { h, sessionId } = await suite.start(capabilities as acp.ClientCapabilities, { config });
      parentDelegates(h, "codex", "edit and run");
      suite.childModel.setHandler((request: RecordedRequest) => {
        const done = toolResults(request).length;
        if (done === 0) return patch(join(suite.project, "hello.txt"), "by codex");
        if (done === 1) return toolTurn("exec_command", { cmd: "echo from-codex > cx.txt" });
        return textTurn("codex edited and ran");
      });
      const { response } = await h.prompt(sessionId, "delegate to codex");
      expect(response.stopReason).toBe("end_turn");
      expect(h.permissions.map((p) => [p.toolCall.kind, p.toolCall.title])).toEqual([
        ["edit", `codex: Edit ${join(suite.project, "hello.txt")}`],
        ["execute", expect.stringContaining("echo from-codex")],
      ]);
      expect(await readFile(join(suite.project, "hello.txt"), "utf8")).toBe("by codex\n");
      // What codex's own command printed, as its model got it: the message if the file is missing.
      const ran = JSON.stringify(toolResults(suite.childModel.requests.at(-1)!).at(-1));
      expect(existsSync(join(suite.project, "cx.txt")), ran).toBe(true);
      expect(await readFile(join(suite.project, "cx.txt"), "utf8")).toBe("from-codex\n");
      // Both with its own tools: no write_file or execute call of ours (fs/*, terminal/*) came to deep-acp.
      const ours = h.updates.filter(
        (n) => "toolCallId" in n.update && String(n.update.toolCallId).includes("/deep-acp-"),
      );
      expect(ours).toEqual([]);
      expect(taskResult(h).text).toContain("codex edited and ran");
    }, 120_000);

    it(`has its patch to a denied path refused, unasked, and the parent told why (${label})`, async () => {
      const config = await codexAgent(suite, CODEX_ASKS);
      const { h, sessionId } = await suite.start(capabilities as acp.ClientCapabilities, { config });
      parentDelegates(h, "codex", "edit a locked file");
      const locked = join(suite.project, "locked", "codex.txt");
      suite.childModel.setHandler((request: RecordedRequest) =>
        toolResults(request).length === 0 ? patch(locked, "no") : textTurn("codex went on"),
      );
      const { response } = await h.prompt(sessionId, "delegate to codex");
      expect(response.stopReason).toBe("end_turn");
      expect(existsSync(locked)).toBe(false);
      expect(h.permissions).toEqual([]);
      // codex offers only "No, provide feedback" for a patch, which ends its turn: the task says why.
      expect(taskResult(h)).toMatchObject({ isError: true });
      expect(taskResult(h).text).toContain(
        `codex agent stopped after deep-acp refused its change: permission denied for write on ${locked}`,
      );
    }, 120_000);
  }
});
