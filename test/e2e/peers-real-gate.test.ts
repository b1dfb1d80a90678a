// What our gate still decides for the real claude-agent-acp and codex-acp, which edit and run
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
import { claudeAgent, missing } from "../support/real-peers.js";

const suite = usePeerSuite();
const CLIENTS = [
  ["with subagents", { subagents: {} }],
  ["without subagents", {}],
] as const;

const claude = missing("@agentclientprotocol/claude-agent-acp", "claude-agent-acp");
describe.skipIf(claude)(`claude-agent-acp under our gate${claude ? ` (skipped: ${claude})` : ""}`, () => {
  for (const [label, capabilities] of CLIENTS) {
    it(`in its default mode asks before a Write: asked in the editor, a denied path refused (${label})`, async () => {
      const config = await claudeAgent(suite, 'mode = "default"\n');
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
      // The denied one: refused by our rules without a dialog; claude's model was told.
      expect(existsSync(join(suite.project, "locked", "claude.txt"))).toBe(false);
      const [, refused] = toolResults(suite.childModel.requests.at(-1)!);
      expect(refused).toMatchObject({ isError: true, text: "User refused permission to run tool" });
      expect(taskResult(h).text).toContain("claude wrote hello.txt");
    }, 120_000);
  }
});
