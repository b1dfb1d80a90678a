import { describe, expect, it } from "vitest";
import { createTranslator } from "../../../src/acp/updates/translate.js";

// A subagent's (or eval's) shell output streams under its parent tool call; every update of a nested
// call names the parent the same way, in ours and in Claude Code's _meta key, so Zed nests it.

describe("translate", () => {
  it("marks streamed terminal output of a nested call with the parent, like its other updates", () => {
    const translate = createTranslator({ terminalOutput: true, notices: false, compaction: false });
    const [start] = translate({
      type: "tool_call",
      toolCallId: "child",
      name: "execute",
      title: "ls",
      kind: "execute",
      status: "in_progress",
      locations: [],
      rawInput: { command: "ls" },
      liveTerminal: { terminalId: "t1", cwd: "/p" },
      parentToolCallId: "task-1",
    });
    const [output] = translate({
      type: "tool_output",
      toolCallId: "child",
      terminalId: "t1",
      data: "a.txt\n",
      parentToolCallId: "task-1",
    });
    const meta = (update: unknown) => (update as { _meta?: Record<string, unknown> })._meta;
    const parent = { "deep-acp": { parentToolCallId: "task-1" }, claudeCode: { parentToolUseId: "task-1" } };
    expect(meta(start)).toMatchObject(parent);
    expect(meta(output)).toMatchObject({ terminal_output: { terminal_id: "t1", data: "a.txt\n" }, ...parent });
  });

  it("names a saved Markdown plan's file by its absolute path, as the stable spec does, and in our _meta", () => {
    const translate = createTranslator({ terminalOutput: false, notices: false, compaction: false, plans: true });
    const event = { type: "plan_document", planId: "plan", content: "## Plan", path: "/h/plans/s.md" } as const;
    expect(translate(event)).toEqual([
      {
        sessionUpdate: "plan_update",
        plan: { type: "markdown", planId: "plan", content: "## Plan", path: "/h/plans/s.md" },
        _meta: { "deep-acp": { path: "/h/plans/s.md" } },
      },
    ]);
    const { path: _path, ...unsaved } = event;
    expect(translate(unsaved)).toEqual([
      { sessionUpdate: "plan_update", plan: { type: "markdown", planId: "plan", content: "## Plan" } },
    ]);
  });
});
