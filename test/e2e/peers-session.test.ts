// Another ACP agent within the parent session: plan mode bounds what the child may do through us,
// the child's tokens count in the session's spend, session/load replays its child session, /agents
// lists it with its health and says what bypasses the gate, and eval's task() reaches it too.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { startHarness } from "../support/acp-harness.js";
import { isAlive, waitForExit } from "../support/processes.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { parentDelegates, taskResult, toolResults, usePeerSuite } from "../support/peer-suite.js";

const BROKEN = join(import.meta.dirname, "..", "fixtures", "peers", "broken-agent.mjs");

const suite = usePeerSuite();
const SUBAGENTS = { subagents: {} } as acp.ClientCapabilities;

/** The fixture agent's JSON answer (after the "starting" it always says first). */
const answerJson = (text: string): unknown => JSON.parse(text.replace(/^starting/, ""));

const replyText = (updates: acp.SessionUpdate[]) =>
  updates
    .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
    .join("");

describe("another ACP agent in the parent session", () => {
  it("in plan mode, refuses the child's writes and commands without asking", async () => {
    const { h, sessionId } = await suite.start(SUBAGENTS);
    await h.agent.request("session/set_mode", { sessionId, modeId: "plan" });
    parentDelegates(h, "child", "try to change things");
    suite.childModel.setHandler((request) => {
      const done = toolResults(request).length;
      if (done === 0) return toolTurn("write_file", { file_path: join(suite.project, "plan.txt"), content: "x" });
      if (done === 1) return toolTurn("execute", { command: "touch ran.txt" });
      return textTurn("could not");
    });
    const { response } = await h.prompt(sessionId, "delegate in plan mode");
    expect(response.stopReason).toBe("end_turn");
    expect(existsSync(join(suite.project, "plan.txt"))).toBe(false);
    expect(existsSync(join(suite.project, "ran.txt"))).toBe(false);
    // The child's own question about the command was answered "no" for the user: no dialog opened.
    expect(h.permissions).toEqual([]);
    const [write, command] = toolResults(suite.childModel.requests.at(-1)!);
    expect(write!.isError).toBe(true);
    expect(command!.isError).toBe(true);
    expect(taskResult(h).text).toBe("could not");
  });

  it("counts the child's tokens in the session's spend and replays its child session on load", async () => {
    const { h, sessionId } = await suite.start(SUBAGENTS);
    parentDelegates(h, "child", "answer briefly");
    suite.childModel.setHandler(() => textTurn("the child's answer", { usage: { input: 1000, output: 200 } }));
    await h.prompt(sessionId, "delegate");
    const cost = await h.prompt(sessionId, "/cost");
    // Two requests of the parent's and the child's one; the child's 1000 input tokens are in the sum.
    expect(replyText(cost.updates)).toMatch(/Model requests: 3 \(/);
    const inputTokens = Number(/\(([\d,]+) input/.exec(replyText(cost.updates))![1]!.replace(/,/g, ""));
    expect(inputTokens).toBeGreaterThanOrEqual(1000);
    await h.close();

    const second = await startHarness({ clientCapabilities: SUBAGENTS, home: suite.home });
    try {
      await second.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
      const announce = second.updates.find(
        (n) => n.update.sessionUpdate === "subagent_update" && "title" in n.update && n.update.title,
      );
      expect((announce?.update as { title?: string })?.title).toBe("child: answer briefly");
      const childId = (announce!.update as { sessionId: string }).sessionId;
      const childText = second.updates
        .filter((n) => n.sessionId === childId)
        .map((n) => n.update)
        .filter((u) => u.sessionUpdate === "agent_message_chunk");
      expect(replyText(childText)).toBe("the child's answer");
    } finally {
      await second.close();
    }
  });

  it("/agents lists the agents with their health and what bypasses the gate", async () => {
    const { h, sessionId } = await suite.start({});
    const before = replyText((await h.prompt(sessionId, "/agents")).updates);
    expect(before).toContain("`child`: A second deep-acp");
    expect(before).toMatch(/child.*not started/);
    expect(before).toContain("deep-acp's gate does not see it");
    // claude-agent-acp's edits and commands are ours; what of it still bypasses the gate is named.
    expect(before).toContain("`mcp__deep-acp__*`");
    expect(before).toContain("its own WebFetch and WebSearch still bypass it");
    parentDelegates(h, "child");
    suite.childModel.setHandler(() => textTurn("hi"));
    await h.prompt(sessionId, "delegate");
    const after = replyText((await h.prompt(sessionId, "/agents")).updates);
    expect(after).toMatch(/`child`.*running \(deep-acp [^,]+, pid \d+\)/);
    // One process for the session, stopped with it.
    const pid = Number(/`child`.*pid (\d+)/.exec(after)![1]);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await h.close();
    expect(await waitForExit(pid)).toBe(true);
  });

  it("runs an agent from eval's task(), listed among the subagent types", async () => {
    const { h, sessionId } = await suite.start({});
    h.model.setHandler((request) =>
      request.messages.at(-1)!.role === "user"
        ? toolTurn("eval", { code: 'await task({ description: "say hi", subagentType: "child" })' })
        : textTurn("done"),
    );
    suite.childModel.setHandler(() => textTurn("hi from the child"));
    await h.prompt(sessionId, "delegate from code");
    const task = h.model.requests[0]!.body.tools.find((t: { name: string }) => t.name === "task");
    expect(task.description).toContain("- child: A second deep-acp");
    expect(taskResult(h).text).toContain("hi from the child");
  });

  it("relays the child's form to the editor as an elicitation, titled with its name, and its answer back", async () => {
    const asked: acp.CreateElicitationRequest[] = [];
    const { h, sessionId } = await suite.start({ elicitation: { form: {} } } as acp.ClientCapabilities, {
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept", content: { colour: "teal" } };
      },
    });
    parentDelegates(h, "elicit");
    await h.prompt(sessionId, "delegate a question");
    expect(asked.map((r) => r.message)).toEqual(["elicit: Which colour?"]);
    expect(answerJson(taskResult(h).text)).toEqual({
      action: "accept",
      content: { colour: "teal" },
    });
  });

  it("relays the child's URL elicitation (a sign-in page) to an editor that opens URLs, and says it finished", async () => {
    const asked: acp.CreateElicitationRequest[] = [];
    const agent = `[agents.elicit-url]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([BROKEN, "elicit-url"])}\n`;
    const { h, sessionId } = await suite.start({ elicitation: { url: {} } } as acp.ClientCapabilities, {
      config: agent,
      onElicitation: async (request) => {
        asked.push(request);
        return { action: "accept" };
      },
    });
    parentDelegates(h, "elicit-url");
    await h.prompt(sessionId, "delegate a sign-in");
    expect(asked).toEqual([
      expect.objectContaining({
        mode: "url",
        message: "elicit-url: Sign in to the service",
        url: "https://example.test/sign-in",
        elicitationId: expect.stringMatching(/\/sign-in-1$/),
      }),
    ]);
    expect(answerJson(taskResult(h).text)).toEqual({ action: "accept" });
    // The child's elicitation/complete reached the editor under the same id.
    expect(h.completions.map((c) => c.elicitationId)).toEqual([(asked[0] as { elicitationId: string }).elicitationId]);
    // An editor that cannot open URLs: the child is not told it may send them.
    const other = await suite.start({ elicitation: { form: {} } } as acp.ClientCapabilities, { config: agent });
    parentDelegates(other.h, "elicit-url");
    await other.h.prompt(other.sessionId, "delegate a sign-in");
    expect(taskResult(other.h).text).toBe("startingno urls");
  });

  it("passes the session's MCP servers on only to an agent the user allowed them", async () => {
    const server = { name: "notes", command: "/bin/true", args: [], env: [] };
    const { h } = await suite.start({});
    const { sessionId } = await h.newSession(suite.project, { mcpServers: [server] });
    parentDelegates(h, "mcp");
    await h.prompt(sessionId, "delegate");
    expect(answerJson(taskResult(h).text)).toEqual([]);
    parentDelegates(h, "mcp-allowed");
    await h.prompt(sessionId, "delegate");
    expect(answerJson(taskResult(h).text)).toEqual([server]);
  });

  it("from an editor that serves files, lands the child's edit in the editor's fs through our gate", async () => {
    const written: acp.WriteTextFileRequest[] = [];
    const { h, sessionId } = await suite.start(
      { fs: { readTextFile: true, writeTextFile: true }, subagents: {} } as acp.ClientCapabilities,
      {
        fs: {
          read: async ({ path }) => ({ content: await readFile(path, "utf8") }),
          write: async (request) => {
            written.push(request);
            await writeFile(request.path, request.content);
          },
        },
      },
    );
    parentDelegates(h, "child", "write through the editor");
    suite.childModel.setHandler((request) =>
      toolResults(request).length === 0
        ? toolTurn("write_file", { file_path: join(suite.project, "via-editor.txt"), content: "child, via the editor" })
        : textTurn("written"),
    );
    await h.prompt(sessionId, "delegate");
    expect(written).toEqual([
      expect.objectContaining({
        sessionId,
        path: join(suite.project, "via-editor.txt"),
        content: "child, via the editor",
      }),
    ]);
    expect(taskResult(h).text).toBe("written");
  });

  it("stops what the child started with it when the session ends (its whole process group)", async () => {
    const { h, sessionId } = await suite.start({});
    parentDelegates(h, "grandchild");
    await h.prompt(sessionId, "delegate");
    const pid = Number(taskResult(h).text.replace(/^starting/, ""));
    expect(() => process.kill(pid, 0)).not.toThrow();
    try {
      await h.close();
      expect(await waitForExit(pid)).toBe(true);
    } finally {
      // Should the group stop fail, the fixture's `sleep 300` must not outlive the test (by its pid).
      if (isAlive(pid)) process.kill(pid, "SIGKILL");
    }
  });

  it("runs the SubagentStart and SubagentStop hooks around the child, with its answer", async () => {
    const log = join(suite.dir, "hooks.log");
    const record = {
      type: "command",
      argv: [
        process.execPath,
        "-e",
        `require("fs").appendFileSync(${JSON.stringify(log)}, require("fs").readFileSync(0, "utf8") + "\\n")`,
      ],
    };
    await writeFile(
      join(suite.home, ".deepagents", "hooks.json"),
      JSON.stringify({ hooks: { SubagentStart: [{ hooks: [record] }], SubagentStop: [{ hooks: [record] }] } }),
    );
    const { h, sessionId } = await suite.start({});
    parentDelegates(h, "child");
    suite.childModel.setHandler(() => textTurn("the child's answer"));
    await h.prompt(sessionId, "delegate");
    const events = (await readFile(log, "utf8"))
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(events.map((e) => e.hook_event_name)).toEqual(["SubagentStart", "SubagentStop"]);
    expect(events[1]).toMatchObject({ agent_type: "child", last_assistant_message: "the child's answer" });
  });

  it("shows the child's own working directory in the command's dialog: a folder that leads elsewhere is not hidden", async () => {
    // A hostile repository: `docs` is a link out of the project. The child asks for `ls > seen.txt` there.
    const outside = await mkdtemp(join(tmpdir(), "deep-acp-peer-outside-"));
    try {
      await symlink(outside, join(suite.project, "docs"));
      const config = terminalAgent("term-cwd", "ls > seen.txt", join(suite.project, "docs"));
      const { h, sessionId } = await suite.start({}, { config });
      parentDelegates(h, "term-cwd");
      await h.prompt(sessionId, "delegate");
      // What the user approved says where it runs; it ran there (the dialog showed what happened).
      expect(h.permissions.map((p) => p.toolCall.title)).toEqual([
        `cd ${join(suite.project, "docs")} && ls > seen.txt`,
      ]);
      expect(existsSync(join(outside, "seen.txt"))).toBe(true);
      expect(answerJson(taskResult(h).text)).toMatchObject({ exitCode: 0 });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it("gives a child none of our keys and tokens but the ones its config names", async () => {
    const names = "OPENAI_API_KEY,AWS_SECRET_ACCESS_KEY,GEMINI_API_KEY,CHILD_SETTING,LANG";
    const config =
      `[agents.env-child]\ncommand = ${JSON.stringify(process.execPath)}\n` +
      `args = ${JSON.stringify([BROKEN, "env", names])}\npass_env = ["GEMINI_API_KEY"]\n` +
      `env = { CHILD_SETTING = "set by the config" }\n`;
    const env = {
      OPENAI_API_KEY: "sk-parent-secret",
      AWS_SECRET_ACCESS_KEY: "aws-parent-secret",
      GEMINI_API_KEY: "gemini-key-passed-on",
      LANG: "C.UTF-8",
    };
    const { h, sessionId } = await suite.start({}, { config, env });
    parentDelegates(h, "env-child");
    await h.prompt(sessionId, "delegate");
    expect(answerJson(taskResult(h).text)).toEqual({
      OPENAI_API_KEY: null,
      AWS_SECRET_ACCESS_KEY: null,
      GEMINI_API_KEY: "gemini-key-passed-on",
      CHILD_SETTING: "set by the config",
      LANG: "C.UTF-8",
    });
  });

  it("never starts a program of the project's own for an agent the user names bare, even with the project on PATH", async () => {
    // A hostile repository ships its own "helper-agent" where a PATH entry leads into the project.
    const bin = join(suite.project, "node_modules", ".bin");
    await mkdir(bin, { recursive: true });
    await writeFile(join(bin, "helper-agent"), `#!/bin/sh\ntouch ${join(suite.project, "pwned.txt")}\n`, {
      mode: 0o755,
    });
    const config = `[agents.helper]\ncommand = "helper-agent"\ntimeout_seconds = 5\n`;
    const { h, sessionId } = await suite.start({}, { config, env: { PATH: `${bin}:${process.env.PATH}` } });
    parentDelegates(h, "helper");
    await h.prompt(sessionId, "delegate");
    expect(existsSync(join(suite.project, "pwned.txt"))).toBe(false);
    expect(taskResult(h).text).toContain("helper-agent is not on PATH outside this project");
  });

  it("refuses a child's command whose environment names are not names (they would be commands of their own)", async () => {
    const env = JSON.stringify([{ name: "A=1 touch pwned.txt; B", value: "x" }]);
    const config = terminalAgent("term-env", "true", suite.project, env);
    const { h, sessionId } = await suite.start({}, { config });
    parentDelegates(h, "term-env");
    await h.prompt(sessionId, "delegate");
    expect(h.permissions).toEqual([]);
    expect(existsSync(join(suite.project, "pwned.txt"))).toBe(false);
    expect(JSON.stringify(answerJson(taskResult(h).text))).toContain("not a variable name");
  });

  it("refuses, unasked, a child's question about writing where our rules deny; asks the editor about the rest", async () => {
    const agent = (name: string, path: string) =>
      `[agents.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${JSON.stringify([BROKEN, "ask-edit", path])}\n`;
    const config = [agent("ask-locked", join(suite.project, "locked", "x.txt")), agent("ask-open", "open.txt")];
    const { h, sessionId } = await suite.start({}, { config: config.join("\n") });
    parentDelegates(h, "ask-locked");
    await h.prompt(sessionId, "delegate");
    expect(answerJson(taskResult(h).text)).toEqual({ outcome: { outcome: "selected", optionId: "no" } });
    expect(h.permissions).toEqual([]);
    // A relative path, in the child's working directory: allowed by the rules, so the user is asked.
    parentDelegates(h, "ask-open");
    await h.prompt(sessionId, "delegate");
    expect(h.permissions.map((p) => p.toolCall.title)).toEqual(["ask-open: Write"]);
    expect(answerJson(taskResult(h).text)).toEqual({ outcome: { outcome: "selected", optionId: "yes" } });
  });
});

/** An agent of the fixture's "terminal" kind: runs `script` in its editor's terminal in `cwd`. */
function terminalAgent(name: string, script: string, cwd: string, env = "[]"): string {
  const args = JSON.stringify([BROKEN, "terminal", script, cwd, env]);
  return `[agents.${name}]\ncommand = ${JSON.stringify(process.execPath)}\nargs = ${args}\ntimeout_seconds = 20\n`;
}
