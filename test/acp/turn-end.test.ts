import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startHarness, type Harness } from "../support/acp-harness.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

// The session's scratch files (/large_tool_results/ and the like) are saved with it at the end of a
// turn; a turn that changed none of them does not write them again.

let home: string;
let project: string;
const harnesses: Harness[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-turn-end-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-turn-end-project-"));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function agent() {
  const h = await startHarness({ home });
  harnesses.push(h);
  return h;
}

describe("saving scratch files at the end of a turn", () => {
  it("writes them when they changed, leaves the file alone when not, and a new process reads them back", async () => {
    const h = await agent();
    const { sessionId } = await h.newSession(project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const saved = join(home, ".deepagents", "sessions", `${sessionId}.files`, "state.json");
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
    harnesses.length = 0;

    const after = await agent();
    await after.agent.request("session/load", { sessionId, cwd: project, mcpServers: [] });
    after.model.enqueue(toolTurn("read_file", { file_path: "/large_tool_results/two.txt" }), textTurn("read"));
    await after.prompt(sessionId, "read the second note");
    expect(JSON.stringify(after.model.requests[1]!.body)).toContain("second note");
  });
});
