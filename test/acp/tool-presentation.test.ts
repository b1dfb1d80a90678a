// What editors label tool calls with (docs/editors.md): Zed shows a call's single location as its
// header and CodeCompanion labels by the first location, so a shell call must carry no directory
// location (its title is the command line) while file tools keep real file locations with lines.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { expect, it } from "vitest";
import { toolUpdates } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useHarnessSuite({ name: "presentation" });

it("shell calls are titled by their command line with no location; file tools point at the file and line", async () => {
  const h = await suite.start();
  const { sessionId } = await h.newSession(suite.project);
  await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
  const file = join(suite.project, "notes.txt");
  await writeFile(file, "one\ntwo\nthree\n");
  h.model.enqueue(
    toolTurn("execute", { command: "echo a: b && ls" }),
    toolTurn("read_file", { file_path: file, offset: 1, limit: 1 }),
    toolTurn("edit_file", { file_path: file, old_string: "three", new_string: "3" }),
    toolTurn("ls", { path: suite.project }),
    toolTurn("grep", { pattern: "two", path: suite.project }),
    textTurn("done"),
  );
  const { updates } = await h.prompt(sessionId, "go");
  // In the order the model called them: sh, read, edit, ls, grep.
  const ids = toolUpdates(updates)
    .filter((u) => u.sessionUpdate === "tool_call")
    .map((u) => u.toolCallId);
  expect(ids).toHaveLength(5);
  const view = (name: string) => {
    const all = toolUpdates(updates, ids[["sh", "read", "edit", "ls", "grep"].indexOf(name)]);
    const start = all.find((u) => u.sessionUpdate === "tool_call")!;
    // The call is announced while its input streams in; the title arrives with the input.
    const title = all
      .map((u) => u.title)
      .filter((t) => t !== undefined)
      .at(-1);
    return { title, kind: start.kind, locations: all.flatMap((u) => u.locations ?? []), status: all.at(-1)!.status };
  };
  expect(view("sh")).toEqual({ title: "echo a: b && ls", kind: "execute", locations: [], status: "completed" });
  expect(view("read")).toMatchObject({ kind: "read", status: "completed" });
  expect(view("read").locations).toContainEqual({ path: file, line: 2 });
  expect(view("edit")).toMatchObject({ kind: "edit", status: "completed" });
  expect(view("edit").locations).toContainEqual({ path: file, line: 3 });
  expect(view("ls")).toMatchObject({ kind: "read", locations: [] });
  expect(view("grep")).toMatchObject({ kind: "search", locations: [] });
});
