import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

// The session's scratch files (/large_tool_results/ and the like) are saved with it at the end of a
// turn; a turn that changed none of them does not write them again.

const suite = useHarnessSuite({ name: "turn-end" });

describe("saving scratch files at the end of a turn", () => {
  it("writes them when they changed, leaves the file alone when not, and a new process reads them back", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const saved = join(suite.home, ".deepagents", "sessions", `${sessionId}.files`, "state.json");
    const write = (name: string, content: string) =>
      h.model.enqueue(toolTurn("write_file", { file_path: `/large_tool_results/${name}`, content }), textTurn("ok"));

    write("one.txt", "first note");
    await h.prompt(sessionId, "save one");
    expect(await readFile(saved, "utf8")).toContain("first note");
    const first = await stat(saved);

    h.model.enqueue(textTurn("nothing to save"));
    await h.prompt(sessionId, "just talk");
    const unchanged = await stat(saved);
    // Saving replaces the file (temp file + rename), so an untouched file keeps its inode and time.
    expect([unchanged.ino, unchanged.mtimeMs]).toEqual([first.ino, first.mtimeMs]);

    write("two.txt", "second note");
    await h.prompt(sessionId, "save two");
    const both = await readFile(saved, "utf8");
    expect(both).toContain("first note");
    expect(both).toContain("second note");
    await h.close();

    const after = await suite.start();
    await after.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    after.model.enqueue(toolTurn("read_file", { file_path: "/large_tool_results/two.txt" }), textTurn("read"));
    await after.prompt(sessionId, "read the second note");
    expect(JSON.stringify(after.model.requests[1]!.body)).toContain("second note");
  });
});
