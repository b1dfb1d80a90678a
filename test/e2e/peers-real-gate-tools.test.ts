// claude-agent-acp edits and runs commands with Claude Code's own tools, which never reach the
// editor's fs/* or terminal/*. deep-acp therefore serves it our own write_file, edit_file, read_file
// and execute as an MCP server and turns its Write, Edit, MultiEdit, NotebookEdit and Bash off: its
// model is offered only ours for changes, and each change is our tool call, under our gate.
import { existsSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";
import { claudeAgent, missing } from "../support/real-peers.js";

const suite = usePeerSuite();
// Zed's files and forms (the in-process harness serves no terminals, so commands run in our own), with subagents.
const { terminal: _terminal, ...ZED_FILES } = ZED_CAPABILITIES;
const CLIENTS = [
  ["Zed's capabilities with subagents", { ...ZED_FILES, subagents: {} }],
  ["a client with no capabilities", {}],
] as const;
// Zed's fs/* over the disk (the harness only records them).
const editorFs = {
  read: async (p: acp.ReadTextFileRequest) => ({ content: await readFile(p.path, "utf8") }),
  write: (p: acp.WriteTextFileRequest) => writeFile(p.path, p.content),
};
const OURS = ["write_file", "edit_file", "read_file", "execute", "ls", "glob", "grep"].map(
  (name) => `mcp__deep-acp__${name}`,
);
// Its own tools that read or change files or run commands: off, ours instead.
const ITS_OWN = ["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "Read", "Glob", "Grep"];

const claude = missing("@agentclientprotocol/claude-agent-acp", "claude-agent-acp");
describe.skipIf(claude)(`claude-agent-acp on our tools${claude ? ` (skipped: ${claude})` : ""}`, () => {
  for (const [label, capabilities] of CLIENTS) {
    it(`writes and runs only through our gate: a denied path refused, a command asked (${label})`, async () => {
      const config = await claudeAgent(suite);
      const { h, sessionId } = await suite.start(capabilities as acp.ClientCapabilities, { config, fs: editorFs });
      parentDelegates(h, "claude", "write, write locked, run");
      const offered: string[][] = [];
      suite.childModel.setHandler((request: RecordedRequest) => {
        if (!request.toolNames.includes(OURS[0]!)) return textTurn("title");
        offered.push(request.toolNames);
        const done = toolResults(request).length;
        if (done === 0)
          return toolTurn(OURS[0]!, { file_path: join(suite.project, "hello.txt"), content: "by claude" });
        if (done === 1)
          return toolTurn(OURS[0]!, { file_path: join(suite.project, "locked", "no.txt"), content: "no" });
        if (done === 2) return toolTurn(OURS[3]!, { command: "pwd > ran.txt" });
        return textTurn("claude is done");
      });
      const { response } = await h.prompt(sessionId, "delegate to claude");
      expect(response.stopReason).toBe("end_turn");

      // Its model was offered our tools and none of its own that read or change files or run commands.
      expect(offered.length).toBeGreaterThan(0);
      expect(offered[0]).toEqual(expect.arrayContaining(OURS));
      for (const own of ITS_OWN) expect(offered[0]).not.toContain(own);

      // The allowed write is our write_file, shown as our tool call (and through Zed's fs/write_text_file).
      expect(await readFile(join(suite.project, "hello.txt"), "utf8")).toBe("by claude");
      // claude's own reports of its MCP calls are not shown again beside ours: one call per action.
      const calls = h.updates.flatMap((n) =>
        n.update.sessionUpdate === "tool_call" && String(n.update.toolCallId).includes("/") ? [n.update] : [],
      );
      expect(calls.map((c) => [c.kind, c.title, /\/deep-acp-\d+$/.test(c.toolCallId)])).toEqual([
        ["edit", "hello.txt", true],
        ["edit", "locked/no.txt", true],
        ["execute", "pwd > ran.txt", true],
      ]);
      if ("fs" in capabilities) expect(h.writes.map((w) => w.path)).toEqual([join(suite.project, "hello.txt")]);

      // The denied write stayed denied, and claude's model read our refusal.
      expect(existsSync(join(suite.project, "locked", "no.txt"))).toBe(false);
      const results = toolResults(suite.childModel.requests.at(-1)!);
      expect(results[1]).toMatchObject({ isError: true });
      expect(results[1]!.text).toContain(`permission denied for write on ${join(suite.project, "locked", "no.txt")}`);

      // The command was asked in the editor (answered yes) and ran in the session's workspace.
      // Only our gate asked (the write and the command); claude asks nothing of its own for our tools.
      expect(h.permissions.map((p) => [p.toolCall.kind, p.toolCall.title])).toEqual([
        ["edit", "hello.txt"],
        ["execute", "pwd > ran.txt"],
      ]);
      expect((await readFile(join(suite.project, "ran.txt"), "utf8")).trim()).toBe(suite.project);
      expect(taskResult(h).text).toContain("claude is done");
    }, 120_000);
  }

  it("reads and edits a file with our read_file and edit_file", async () => {
    const config = await claudeAgent(suite);
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    await writeFile(join(suite.project, "notes.txt"), "one\ntwo\n");
    parentDelegates(h, "claude", "edit notes");
    suite.childModel.setHandler((request: RecordedRequest) => {
      if (!request.toolNames.includes(OURS[0]!)) return textTurn("title");
      const done = toolResults(request).length;
      if (done === 0) return toolTurn(OURS[2]!, { file_path: join(suite.project, "notes.txt") });
      if (done === 1)
        return toolTurn(OURS[1]!, { file_path: join(suite.project, "notes.txt"), old_string: "two", new_string: "2" });
      return textTurn("edited");
    });
    const { response } = await h.prompt(sessionId, "delegate to claude");
    expect(response.stopReason).toBe("end_turn");
    const [read, edit] = toolResults(suite.childModel.requests.at(-1)!);
    expect(read!.isError).toBeFalsy();
    expect(read!.text).toContain("two");
    expect(edit!.isError).toBeFalsy();
    expect(await readFile(join(suite.project, "notes.txt"), "utf8")).toBe("one\n2\n");
    expect(taskResult(h).text).toContain("edited");
  }, 120_000);

  it("in the parent's plan mode is offered only our reading tools: no way to write or run", async () => {
    const config = await claudeAgent(suite);
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    await h.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    parentDelegates(h, "claude", "look around");
    const offered: string[][] = [];
    suite.childModel.setHandler((request: RecordedRequest) => {
      if (request.toolNames.includes(OURS[2]!)) offered.push(request.toolNames);
      return textTurn("looked");
    });
    const { response } = await h.prompt(sessionId, "delegate in plan mode");
    expect(response.stopReason).toBe("end_turn");
    expect(offered.length).toBeGreaterThan(0);
    const mcp = offered[0]!.filter((name) => name.startsWith("mcp__deep-acp__"));
    expect([...mcp].sort()).toEqual([OURS[2]!, ...OURS.slice(4)].sort());
    for (const own of ITS_OWN) expect(offered[0]).not.toContain(own);
  }, 120_000);

  it("gives claude's own subagents our tools too, not its Write or Bash", async () => {
    // Its own default mode (auto) would ask a classifier model before launching a subagent.
    const config = await claudeAgent(suite, 'mode = "default"\n');
    const { h, sessionId } = await suite.start({ subagents: {} } as acp.ClientCapabilities, { config });
    parentDelegates(h, "claude", "use a subagent");
    const lists: string[][] = [];
    suite.childModel.setHandler((request: RecordedRequest) => {
      if (request.toolNames.length) lists.push(request.toolNames);
      if (request.toolNames.includes("Agent") && lists.length === 1)
        return toolTurn("Agent", { description: "sub", prompt: "write a file", subagent_type: "general-purpose" });
      return textTurn("done");
    });
    const { response } = await h.prompt(sessionId, "delegate to claude");
    expect(response.stopReason).toBe("end_turn");
    // A subagent of Claude Code's is offered no AskUserQuestion: that is how its requests are told apart.
    const subagent = lists.filter((names) => !names.includes("AskUserQuestion"));
    expect(subagent.length).toBeGreaterThan(0);
    for (const names of lists) {
      expect(names).toEqual(expect.arrayContaining(OURS));
      for (const own of ITS_OWN) expect(names).not.toContain(own);
    }
  }, 120_000);
});
