// What the weakest clients show of a tool call (issue 38), checked against their rendering code:
// acpx prints `rawOutput` through its text keys (`output`, ...) or else as JSON; agent-shell shows
// `<Kind> <title> <rawInput.description>` (the description unless it equals the title);
// CodeCompanion labels `Kind: <title before its first colon>`.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { toolUpdates } from "../support/acp-harness.js";
import { limitHeaders, textTurn, toolTurn, type FakeTurn } from "../support/fake-model/index.js";
import { useHarnessSuite } from "../support/harness-suite.js";

const suite = useHarnessSuite({ name: "editor-shapes" });

type Update = ReturnType<typeof toolUpdates>[number];
/** Each tool call's updates, by the tool's name (from `_meta["deep-acp"].toolName`). */
function callsByTool(updates: acp.SessionUpdate[]) {
  const all = toolUpdates(updates);
  const byTool = new Map<string, Update[]>();
  for (const start of all.filter((u) => u.sessionUpdate === "tool_call")) {
    const name = (start._meta?.["deep-acp"] as { toolName?: string } | undefined)?.toolName ?? "?";
    byTool.set(
      name,
      all.filter((u) => u.toolCallId === start.toolCallId),
    );
  }
  return byTool;
}
const lastTitle = (calls: Update[] | undefined) =>
  (calls ?? [])
    .map((u) => u.title)
    .filter((t) => t !== undefined)
    .at(-1);
const final = (calls: Update[] | undefined) => (calls ?? []).at(-1)!;

describe("tool calls as the weakest clients show them", () => {
  it("a finished command and a subagent carry the text they showed as rawOutput.output", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    h.model.setHandler((request): FakeTurn => {
      if (request.system.includes("You are a subagent")) return textTurn("CHILD ANSWER");
      const step = request.messages.length;
      if (step === 1) return toolTurn("execute", { command: "echo hello-raw-output" });
      if (step === 3) return toolTurn("task", { description: "look around", subagent_type: "general-purpose" });
      return textTurn("done");
    });
    const { updates } = await h.prompt(sessionId, "go");
    const calls = callsByTool(updates);
    const sh = final(calls.get("execute"));
    expect(sh.status).toBe("completed");
    expect(sh.rawOutput).toMatchObject({ exitCode: 0, output: expect.stringContaining("hello-raw-output") });
    const task = final(calls.get("task"));
    expect(task.status).toBe("completed");
    expect(task.rawOutput).toMatchObject({ subagentType: "general-purpose", output: "CHILD ANSWER" });
  });

  it("titles name the thing, with no kind word and no colon: file path, task description, plan item", async () => {
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    await mkdir(join(suite.project, "notes"));
    await writeFile(join(suite.project, "notes", "a.txt"), "one\n");
    const todos = [
      { content: "Plan step one", status: "in_progress" },
      { content: "Plan step two", status: "pending" },
    ];
    h.model.setHandler((request): FakeTurn => {
      if (request.system.includes("You are a subagent")) return textTurn("ok");
      const steps: FakeTurn[] = [
        toolTurn("write_todos", { todos }),
        toolTurn("write_file", { file_path: join(suite.project, "notes", "x.txt"), content: "new\n" }),
        toolTurn("edit_file", { file_path: join(suite.project, "notes", "a.txt"), old_string: "one", new_string: "1" }),
        toolTurn("read_file", { file_path: join(suite.project, "notes", "a.txt") }),
        toolTurn("task", { description: "run the echo", subagent_type: "general-purpose" }),
      ];
      return steps[(request.messages.length - 1) / 2] ?? textTurn("done");
    });
    const { updates } = await h.prompt(sessionId, "go");
    const calls = callsByTool(updates);
    expect(lastTitle(calls.get("write_todos"))).toBe("Working on Plan step one");
    expect(lastTitle(calls.get("write_file"))).toBe(join("notes", "x.txt"));
    expect(lastTitle(calls.get("edit_file"))).toBe(join("notes", "a.txt"));
    expect(lastTitle(calls.get("read_file"))).toBe(join("notes", "a.txt"));
    // agent-shell appends rawInput.description unless it equals the title: equal, it shows once.
    expect(lastTitle(calls.get("task"))).toBe("run the echo");
    expect(final(calls.get("task")).status).toBe("completed");
    // The plan is rendered from the plan update; the call itself shows no JSON.
    const plan = final(calls.get("write_todos"));
    expect(plan.status).toBe("completed");
    expect(plan.content).toEqual([{ type: "content", content: { type: "text", text: "0 of 2 done" } }]);
    expect(JSON.stringify(calls.get("write_todos"))).not.toContain("Updated todo list");
  });
});

describe("files through the editor", () => {
  it("a new file is not read through the editor (acpx printed each not-found as an error); an existing one is", async () => {
    const reads: string[] = [];
    const h = await suite.start({
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
      fs: {
        read: async ({ path }) => {
          reads.push(path);
          try {
            return { content: await readFile(path, "utf8") };
          } catch {
            throw acp.RequestError.resourceNotFound(path);
          }
        },
        write: ({ path, content }) => writeFile(path, content),
      },
    });
    const { sessionId } = await h.newSession(suite.project);
    const fresh = join(suite.project, "fresh.txt");
    const old = join(suite.project, "old.txt");
    await writeFile(old, "before\n");
    h.model.enqueue(
      toolTurn("write_file", { file_path: fresh, content: "new\n" }),
      toolTurn("write_file", { file_path: old, content: "after\n" }),
      textTurn("done"),
    );
    await h.prompt(sessionId, "write them");
    expect(await readFile(fresh, "utf8")).toBe("new\n");
    expect(await readFile(old, "utf8")).toBe("after\n");
    expect(h.permissions).toHaveLength(2);
    expect(reads.filter((p) => p.endsWith("fresh.txt"))).toEqual([]);
    expect(reads.filter((p) => p.endsWith("old.txt")).length).toBeGreaterThan(0);
  });

  it("a new file's diff leaves oldText out instead of null (CodeCompanion's verbose label read JSON null as text)", async () => {
    // CodeCompanion 19.22 (formatters.lua diff_summary) does `vim.split(diff.oldText or "")`; JSON
    // null decodes to vim.NIL, which is truthy, so a new file's line read `[Error formatting tool output]`.
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    const old = join(suite.project, "old.txt");
    await writeFile(old, "before\n");
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "fresh.txt"), content: "new\n" }),
      toolTurn("write_file", { file_path: old, content: "after\n" }),
      textTurn("done"),
    );
    const { updates } = await h.prompt(sessionId, "write them");
    const diffs = (content: acp.ToolCallContent[] | null | undefined) =>
      (content ?? []).filter((c): c is Extract<acp.ToolCallContent, { type: "diff" }> => c.type === "diff");
    const shown = [
      ...h.permissions.flatMap((p) => diffs(p.toolCall.content)),
      ...toolUpdates(updates).flatMap((u) => diffs(u.content)),
    ];
    const fresh = shown.filter((d) => d.path.endsWith("fresh.txt"));
    expect(fresh.length).toBeGreaterThanOrEqual(2); // the dialog's preview and the finished call
    for (const diff of fresh) expect(diff).toEqual({ type: "diff", path: diff.path, newText: "new\n" });
    const kept = shown.filter((d) => d.path.endsWith("old.txt"));
    expect(kept.length).toBeGreaterThanOrEqual(2);
    for (const diff of kept) expect(diff.oldText).toBe("before\n");
  });
});

describe("limit warnings", () => {
  it("an OpenAI-style relative reset (`6m0s`) warns once per window, not on every model request", async () => {
    const h = await suite.start({ api: "openai" });
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const headers = limitHeaders("openai", { tokensLeft: 4000, resetsInSeconds: 360 });
    h.model.enqueue(
      { ...toolTurn("ls", { path: suite.project }), headers },
      { ...toolTurn("ls", { path: suite.project }), headers },
      { ...textTurn("one"), headers },
      { ...textTurn("two"), headers },
    );
    const first = await h.prompt(sessionId, "look");
    const second = await h.prompt(sessionId, "again");
    const warnings = [...first.updates, ...second.updates].filter(
      (u) =>
        u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && /nearly reached/.test(u.content.text),
    );
    expect(h.model.requests).toHaveLength(4);
    expect(warnings).toHaveLength(1);
  });
});
