// Nothing lost from long command output, end to end with the built binary: a 230,000-character
// output is saved whole to /large_tool_results/, the model is sent its head, tail and path, and by
// paging through it with read_file offsets the model reads every line. The editor's view stays what
// it was: its own terminal, or (without one) a head-and-tail text of [shell] output_chars.
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";

const LINES = 2300;
const LINE = (i: number) => `line ${i} `.padEnd(99, ".");
const EXPECTED = Array.from({ length: LINES }, (_, i) => LINE(i + 1)).join("\n") + "\n";
// Prints EXPECTED: 2300 lines of 99 characters plus a newline, 230,000 characters.
const COMMAND = `${JSON.stringify(process.execPath)} -e 'for (let i = 1; i <= ${LINES}; i++) console.log(("line " + i + " ").padEnd(99, "."))'`;
const PAGE = 500;

const suite = useAgentSuite({ name: "long" });

/** The model: run the command, then page through the saved output until read_file says there is no more. */
function pagingModel(request: RecordedRequest) {
  const tool = request.messages.filter((m) => m.role === "tool").at(-1);
  if (!tool) return toolTurn("execute", { command: COMMAND });
  const saved = /saved in the filesystem at this path: (\/large_tool_results\/\S+)/.exec(tool.text)?.[1];
  if (saved) return toolTurn("read_file", { file_path: saved, offset: 0, limit: PAGE });
  const more = /Use offset=(\d+) to read more/.exec(tool.text)?.[1];
  const path = request.messages.flatMap((m) => m.toolCalls ?? []).find((c) => c.name === "read_file")!.input as {
    file_path: string;
  };
  if (more) return toolTurn("read_file", { file_path: path.file_path, offset: Number(more), limit: PAGE });
  return textTurn("read it all");
}

/** The text of every line the model was sent by its read_file calls, in order, without line numbers. */
function linesReadBack(requests: readonly RecordedRequest[]): string[] {
  const last = requests.at(-1)!;
  const readIds = new Set(
    last.messages
      .flatMap((m) => m.toolCalls ?? [])
      .filter((c) => c.name === "read_file")
      .map((c) => c.id),
  );
  return last.messages
    .filter((m) => m.role === "tool" && readIds.has(m.toolCallId!))
    .flatMap((m) => m.text.split("\n").flatMap((line) => /^\s*\d+\t(.*)$/.exec(line)?.[1] ?? []));
}

describe("a 230,000-character command output", () => {
  for (const editor of ["with no editor terminal (local shell)", "in Zed's terminal"] as const) {
    it(`is saved whole and read back in full by the model, ${editor}`, async () => {
      const client = createFakeEditor();
      await suite.start({ onRequest: client.handle });
      await suite.agent.initialize(editor === "in Zed's terminal" ? ZED_CAPABILITIES : {});
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      await suite.agent.request("session/set_mode", { sessionId: result.sessionId, modeId: "bypass" });
      suite.model.setHandler(pagingModel);
      const before = suite.model.requests.length;
      const response = await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "run it and read all of it" }],
      });
      expect(response.result.stopReason).toBe("end_turn");

      // The model was first sent head, tail and path, not the whole output...
      const first = suite.model.requests[before + 1]!.messages.filter((m) => m.role === "tool").at(-1)!;
      expect(first.text).toMatch(/^Tool result too large/);
      expect(first.text).toContain(LINE(1));
      expect(first.text).toContain(LINE(LINES));
      expect(first.text).not.toContain(LINE(1150));
      expect(first.text.length).toBeLessThan(5000);
      // ...and then read every line, the middle included, in pages.
      const read = linesReadBack(suite.model.requests);
      expect(read.slice(0, LINES).join("\n") + "\n").toBe(EXPECTED);
      // The output's final newline, then the status line execute adds.
      expect(read.slice(LINES)).toEqual(["", "[Command succeeded with exit code 0]"]);
      expect(suite.model.requests.length - before).toBe(2 + Math.ceil((LINES + 2) / PAGE));

      // The editor saw what it always saw.
      const updates = suite.agent.updates(result.sessionId);
      const executeId = updates.find((u: any) => u.sessionUpdate === "tool_call" && u.kind === "execute").toolCallId;
      const content = updates.filter((u: any) => u.toolCallId === executeId).flatMap((u: any) => u.content ?? []);
      if (editor === "in Zed's terminal") {
        expect(content.some((c: any) => c.type === "terminal")).toBe(true);
      } else {
        const shown = content
          .filter((c: any) => c.type === "content")
          .map((c: any) => c.content.text)
          .join("");
        expect(shown).toContain(LINE(1));
        expect(shown).toContain("characters truncated");
        expect(shown.length).toBeLessThan(31_000);
      }
    });
  }
});
