// Lifecycle hooks end to end over ACP: every event fires through the real agent with the payload a
// Claude Code hook script reads, hooks' decisions change what the editor and the model see, the
// runner keeps its limits (timeouts, scrubbed environment), and project hooks wait for trust.
// Hooks here are test/fixtures/e2e-hooks/record.mjs, which appends what it received to a log file.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createHash } from "node:crypto";
import { join, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { beforeEach, describe, expect, it } from "vitest";
import { agentText, toolUpdates, type HarnessOptions } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn, type FakeTurn } from "../support/fake-model/index.js";
import { waitForExit } from "../support/processes.js";
import { poll } from "../support/poll.js";

const RECORD = resolve(__dirname, "../fixtures/e2e-hooks/record.mjs");
const RECORD_SH = resolve(__dirname, "../fixtures/e2e-hooks/record.sh");
const EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PermissionRequest",
  "Notification",
  "PostToolUse",
  "PostToolUseFailure",
  "PreCompact",
  "Stop",
  "SubagentStart",
  "SubagentStop",
  "SessionEnd",
] as const;

type Logged = {
  payload: Record<string, any>;
  envNames: string[];
  env: Record<string, string>;
  cwd: string;
  pid: number;
  childPid?: number;
};
type Hooks = Record<string, unknown>;

const suite = useHarnessSuite({ name: "hooks", prepare: gitProject });
let scratch: string;
let log: string;
beforeEach(async () => {
  scratch = await suite.tempDir("scratch");
  log = join(scratch, "hooks.log");
});

/** A handler running record.mjs without a shell (argv), logging to this test's log. */
const record = (...flags: string[]) => ({ type: "command", argv: [process.execPath, RECORD, log, ...flags] });
const group = (handler: unknown, matcher?: string) => [
  { ...(matcher !== undefined ? { matcher } : {}), hooks: [handler] },
];
const output = (value: unknown) => ["--stdout", JSON.stringify(value)];

async function writeHooks(dir: string, hooks: Hooks): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, "hooks.json");
  await writeFile(file, JSON.stringify({ hooks }, null, 2));
  return file;
}
const userHooks =
  (hooks: Hooks): HarnessOptions["setupHome"] =>
  async (home) =>
    void (await writeHooks(join(home, ".deepagents"), hooks));

async function logged(event?: string): Promise<Logged[]> {
  if (!existsSync(log)) return [];
  const lines = (await readFile(log, "utf8")).split("\n").filter((line) => line.trim() !== "");
  const entries = lines.map((line) => JSON.parse(line) as Logged);
  return event === undefined ? entries : entries.filter((e) => e.payload.hook_event_name === event);
}

/** Notification hooks are fire-and-forget, so their lines may land just after the turn. */
async function waitForLogged(event: string, count: number): Promise<Logged[]> {
  // On time-out the entries so far are returned, for the caller's assertion to show.
  await poll(async () => (await logged(event)).length >= count);
  return logged(event);
}

const payloads = async (event: string) => (await logged(event)).map((e) => e.payload);
const setMode = (sessionId: string, modeId: string) =>
  suite.harness.agent.request("session/set_mode", { sessionId, modeId });
const lastUpdate = (updates: readonly acp.SessionUpdate[], toolCallId: string) =>
  toolUpdates(updates, toolCallId).at(-1);
const toolCallOf = (updates: readonly acp.SessionUpdate[], title: string) =>
  toolUpdates(updates).find((u) => u.sessionUpdate === "tool_call" && u.title === title) ??
  toolUpdates(updates).find((u) => u.title === title);
const toolResults = (request: { messages: Array<{ role: string; text: string; isError?: boolean }> }) =>
  request.messages.filter((m) => m.role === "tool");
const noticeTitles = (updates: readonly acp.SessionUpdate[]) =>
  updates
    .filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: "notice" }> => u.sessionUpdate === "notice")
    .map((u) => `${u.title} ${u.description ?? ""}`);
const NOTICES = { session: { notices: {} } } as acp.ClientCapabilities;

describe("every event, with the payload Claude Code hook scripts read", () => {
  it("a turn with a dialog, a success, a failure and a final answer fires the events in order with their fields", async () => {
    const hooks = Object.fromEntries(EVENTS.map((event) => [event, group(record())]));
    const h = await suite.start({ setupHome: userHooks(hooks), onPermission: () => "allow_once" });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("execute", { command: "echo hooked" }),
      toolTurn("read_file", { file_path: join(suite.project, "missing.txt") }),
      textTurn("All done."),
    );
    const { updates, response } = await h.prompt(sessionId, "run the check");
    expect(response.stopReason).toBe("end_turn");
    await waitForLogged("Notification", 2);

    const all = await logged();
    expect(all.map((e) => e.payload.hook_event_name).filter((name) => name !== "Notification")).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "PreToolUse",
      "PermissionRequest",
      "PostToolUse",
      "PreToolUse",
      "PostToolUseFailure",
      "Stop",
    ]);
    const transcript = join(h.home, ".deepagents", "sessions", `${sessionId}.jsonl`);
    for (const entry of all) {
      expect(entry.payload).toMatchObject({
        session_id: sessionId,
        transcript_path: transcript,
        cwd: suite.project,
        permission_mode: "default",
      });
      expect(entry.payload.agent_id).toBeUndefined();
    }
    expect(existsSync(transcript)).toBe(true);

    expect(await payloads("SessionStart")).toEqual([
      expect.objectContaining({ source: "startup", model: expect.any(String) }),
    ]);
    expect(await payloads("UserPromptSubmit")).toEqual([expect.objectContaining({ prompt: "run the check" })]);
    const [bash, read] = await payloads("PreToolUse");
    expect(bash).toMatchObject({
      tool_name: "Bash",
      tool_input: { command: "echo hooked" },
      tool_use_id: expect.any(String),
    });
    expect(read).toMatchObject({ tool_name: "Read", tool_input: { file_path: join(suite.project, "missing.txt") } });
    // tool_use_id is the id the editor shows the call under, and pairs Pre with Post.
    expect(toolUpdates(updates).some((u) => u.toolCallId === bash!.tool_use_id)).toBe(true);
    expect(await payloads("PermissionRequest")).toEqual([
      expect.objectContaining({
        tool_name: "Bash",
        tool_input: { command: "echo hooked" },
        permission_suggestions: [],
      }),
    ]);
    const [post] = await payloads("PostToolUse");
    expect(post).toMatchObject({
      tool_name: "Bash",
      tool_use_id: bash!.tool_use_id,
      tool_input: { command: "echo hooked" },
    });
    expect(post!.tool_response).toMatchObject({
      stdout: expect.stringContaining("hooked"),
      interrupted: false,
      exitCode: 0,
    });
    const [failure] = await payloads("PostToolUseFailure");
    expect(failure).toMatchObject({ tool_name: "Read", tool_use_id: read!.tool_use_id, is_interrupt: false });
    expect(failure!.error).toContain("missing.txt");
    expect(await payloads("Stop")).toEqual([
      expect.objectContaining({ stop_hook_active: false, last_assistant_message: "All done." }),
    ]);

    const notifications = await payloads("Notification");
    expect(notifications.map((n) => n.notification_type).sort()).toEqual(["idle_prompt", "permission_prompt"]);
    expect(notifications.find((n) => n.notification_type === "permission_prompt")!.message).toContain("Bash");
    // The dialog the notification announced really reached the editor, and the command ran.
    expect(h.permissions).toHaveLength(1);
    expect(toolResults(h.model.requests[1]!)[0]!.text).toContain("hooked");
  });

  it("built-in tools reach hooks under Claude's wire names with Claude-shaped tool_input, subagents included", async () => {
    const hooks = {
      PreToolUse: group(record()),
      PostToolUse: group(record(), "Task"),
      SubagentStart: group(record()),
      SubagentStop: group(record()),
    };
    const h = await suite.start({ setupHome: userHooks(hooks) });
    await writeFile(join(suite.project, "a.txt"), "alpha\nbeta\n");
    await writeFile(join(suite.project, "b.txt"), "one two\n");
    const { sessionId } = await h.newSession(suite.project);
    await setMode(sessionId, "bypass");
    h.model.setHandler((request): FakeTurn => {
      if (request.system.includes("You are a subagent")) {
        return request.messages.length === 1
          ? toolTurn("ls", { path: join(suite.project, ".git") })
          : textTurn("subagent report");
      }
      if (request.messages.length > 1) return textTurn("done");
      const call = (name: string, input: unknown) => ({ type: "tool_call" as const, name, input });
      return {
        parts: [
          call("write_file", { file_path: join(suite.project, "new.txt"), content: "fresh" }),
          call("edit_file", { file_path: join(suite.project, "b.txt"), old_string: "one", new_string: "uno" }),
          call("read_file", { file_path: join(suite.project, "a.txt"), offset: 1, limit: 1 }),
          call("ls", { path: suite.project }),
          call("grep", { pattern: "a.b", path: suite.project }),
          call("glob", { pattern: "*.txt", path: suite.project }),
          call("write_todos", { todos: [{ content: "check the hooks", status: "pending" }] }),
          call("task", { description: "look around", subagent_type: "general-purpose" }),
        ],
      };
    });
    const { response } = await h.prompt(sessionId, "do everything at once");
    expect(response.stopReason).toBe("end_turn");

    const pre = await payloads("PreToolUse");
    const byName = (name: string) => pre.filter((p) => p.tool_name === name && p.agent_id === undefined);
    expect(pre.every((p) => p.permission_mode === "bypassPermissions")).toBe(true);
    expect(byName("Write")).toEqual([
      expect.objectContaining({ tool_input: { file_path: join(suite.project, "new.txt"), content: "fresh" } }),
    ]);
    expect(byName("Edit")).toEqual([
      expect.objectContaining({
        tool_input: {
          file_path: join(suite.project, "b.txt"),
          old_string: "one",
          new_string: "uno",
          replace_all: false,
        },
      }),
    ]);
    // Claude's Read offset is a 1-based line number.
    expect(byName("Read")).toEqual([
      expect.objectContaining({ tool_input: { file_path: join(suite.project, "a.txt"), offset: 2, limit: 1 } }),
    ]);
    expect(byName("LS")).toEqual([expect.objectContaining({ tool_input: { path: suite.project } })]);
    // Our grep pattern is literal; Claude's is a regex, so the hook sees it escaped.
    expect(byName("Grep")).toEqual([
      expect.objectContaining({ tool_input: expect.objectContaining({ pattern: "a\\.b", path: suite.project }) }),
    ]);
    expect(byName("Glob")).toEqual([
      expect.objectContaining({ tool_input: { pattern: "*.txt", path: suite.project } }),
    ]);
    expect(byName("TodoWrite")).toEqual([
      expect.objectContaining({
        tool_input: { todos: [expect.objectContaining({ content: "check the hooks", status: "pending" })] },
      }),
    ]);
    expect(byName("Task")).toEqual([
      expect.objectContaining({ tool_input: { description: "look around", subagent_type: "general-purpose" } }),
    ]);

    const [start] = await payloads("SubagentStart");
    expect(start).toMatchObject({ agent_type: "general-purpose", agent_id: expect.any(String) });
    expect(await payloads("SubagentStop")).toEqual([
      expect.objectContaining({
        agent_id: start!.agent_id,
        agent_type: "general-purpose",
        stop_hook_active: false,
        last_assistant_message: "subagent report",
      }),
    ]);
    // Task's tool_response is shaped like Claude's: the report as text content.
    expect((await payloads("PostToolUse"))[0]!.tool_response).toMatchObject({
      content: [{ type: "text", text: "subagent report" }],
    });
    // The subagent's own calls carry its id and type.
    expect(pre.filter((p) => p.agent_id !== undefined)).toEqual([
      expect.objectContaining({
        tool_name: "LS",
        tool_input: { path: join(suite.project, ".git") },
        agent_id: start!.agent_id,
        agent_type: "general-purpose",
      }),
    ]);
  });

  it("/compact fires PreCompact; /clear and session/close fire SessionEnd; the next session start says clear, then resume after session/load", async () => {
    const hooks = {
      PreCompact: group(record()),
      SessionEnd: group({ type: "command", command: `sh ${RECORD_SH} ${log}` }),
      SessionStart: group(record()),
    };
    const h = await suite.start({ setupHome: userHooks(hooks) });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("noted"));
    for (const text of ["one", "two", "three", "four"]) await h.prompt(sessionId, text);
    const compact = await h.prompt(sessionId, "/compact keep the decisions");
    expect(agentText(compact.updates)).toContain("Compacted");
    expect(await payloads("PreCompact")).toEqual([
      expect.objectContaining({ trigger: "manual", custom_instructions: "keep the decisions", session_id: sessionId }),
    ]);

    await h.prompt(sessionId, "/clear");
    expect(await payloads("SessionEnd")).toEqual([expect.objectContaining({ reason: "clear", session_id: sessionId })]);
    await h.prompt(sessionId, "after clear");
    await h.agent.request("session/close", { sessionId });
    expect((await payloads("SessionEnd")).map((p) => p.reason)).toEqual(["clear", "other"]);

    await h.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
    await h.prompt(sessionId, "after load");
    expect((await payloads("SessionStart")).map((p) => p.source)).toEqual(["startup", "clear", "resume"]);
  });
});

describe("SessionStart and UserPromptSubmit", () => {
  it("SessionStart runs once, before UserPromptSubmit; its context waits for the first prompt a hook lets through", async () => {
    const gate = {
      type: "command",
      command: `${process.execPath} ${RECORD} ${log} --if prompt=forbidden --stderr 'that word is not allowed' --exit 2`,
    };
    const h = await suite.start({
      setupHome: userHooks({
        SessionStart: group(record("--stdout", "The build command is make.")),
        UserPromptSubmit: group(gate),
      }),
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    const blocked = await h.prompt(sessionId, "forbidden");
    expect(agentText(blocked.updates)).toContain("that word is not allowed");
    expect(h.model.requests).toHaveLength(0);
    await h.prompt(sessionId, "build it");
    expect(h.model.requests[0]!.lastUserText).toContain("build it");
    expect(h.model.requests[0]!.lastUserText).toContain("The build command is make.");
    expect((await logged()).map((e) => e.payload.hook_event_name)).toEqual([
      "SessionStart",
      "UserPromptSubmit",
      "UserPromptSubmit",
    ]);
  });
});

describe("PreToolUse decisions", () => {
  it("deny fails the call with the reason, in the editor and for the model", async () => {
    const deny = output({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: "generated files are read-only",
      },
    });
    const h = await suite.start({ setupHome: userHooks({ PreToolUse: group(record(...deny), "Write|Edit") }) });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "gen.ts"), content: "x" }),
      textTurn("understood"),
    );
    const { updates } = await h.prompt(sessionId, "write it");
    const call = toolCallOf(updates, "write_file") ?? toolUpdates(updates)[0]!;
    expect(lastUpdate(updates, call.toolCallId)).toMatchObject({ status: "failed" });
    expect(JSON.stringify(lastUpdate(updates, call.toolCallId)!.content)).toContain(
      "Write blocked by hook: generated files are read-only",
    );
    expect(toolResults(h.model.requests[1]!)[0]).toMatchObject({
      isError: true,
      text: "Write blocked by hook: generated files are read-only",
    });
    expect(h.permissions).toHaveLength(0);
    expect(existsSync(join(suite.project, "gen.ts"))).toBe(false);
  });

  it("ask forces the editor dialog even in bypass and accept-edits", async () => {
    const ask = output({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "confirm this one",
      },
    });
    const h = await suite.start({
      setupHome: userHooks({ PreToolUse: group(record(...ask), "Bash|Write") }),
      onPermission: (r) => (r.toolCall.title?.includes("echo") ? "allow_once" : "reject_once"),
    });
    const { sessionId } = await h.newSession(suite.project);
    await setMode(sessionId, "bypass");
    h.model.enqueue(toolTurn("execute", { command: "echo asked > asked.txt" }), textTurn("ok"));
    await h.prompt(sessionId, "run it");
    expect(h.permissions).toHaveLength(1);
    expect(await readFile(join(suite.project, "asked.txt"), "utf8")).toBe("asked\n");

    await setMode(sessionId, "accept-edits");
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "edit.txt"), content: "x" }),
      textTurn("ok"),
    );
    await h.prompt(sessionId, "write it");
    expect(h.permissions).toHaveLength(2);
    expect(existsSync(join(suite.project, "edit.txt"))).toBe(false);
    expect(toolResults(h.model.requests.at(-1)!).at(-1)!.text).toContain("rejected");
  });

  it("allow skips our own dialog but never overrides a [[permissions]] deny rule", async () => {
    const allow = output({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } });
    const h = await suite.start({
      setupHome: async (home) => {
        await userHooks({ PreToolUse: group(record(...allow), "Write") })!(home);
        const rule = `[[permissions]]\noperations = ["write"]\npaths = [${JSON.stringify(`${suite.project}/locked/**`)}]\nmode = "deny"\n`;
        await writeFile(join(home, ".deepagents", "config.toml"), rule);
      },
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "allowed.txt"), content: "allowed" }),
      toolTurn("write_file", { file_path: join(suite.project, "locked", "secret.txt"), content: "x" }),
      textTurn("ok"),
    );
    await h.prompt(sessionId, "go");
    // Default mode asks before edits; the hook's allow answered instead.
    expect(h.permissions).toHaveLength(0);
    expect(await readFile(join(suite.project, "allowed.txt"), "utf8")).toBe("allowed");
    expect(existsSync(join(suite.project, "locked", "secret.txt"))).toBe(false);
    expect(toolResults(h.model.requests.at(-1)!).at(-1)).toMatchObject({ isError: true });
    expect((await payloads("PreToolUse")).map((p) => p.tool_input.file_path)).toEqual([
      join(suite.project, "allowed.txt"),
    ]);
  });
});

describe("PermissionRequest hooks answer the dialog, or let it reach the editor", () => {
  it("allow and deny answer without a dialog; an undecided hook falls through to the editor", async () => {
    const hooks = {
      PermissionRequest: [
        {
          matcher: "Bash",
          hooks: [
            record(
              ...output({
                hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
              }),
            ),
          ],
        },
        {
          matcher: "Write",
          hooks: [
            record(
              ...output({
                hookSpecificOutput: {
                  hookEventName: "PermissionRequest",
                  decision: { behavior: "deny", message: "no new files today" },
                },
              }),
            ),
          ],
        },
        { matcher: "Edit", hooks: [record()] },
      ],
    };
    const h = await suite.start({ setupHome: userHooks(hooks), onPermission: () => "allow_once" });
    await writeFile(join(suite.project, "b.txt"), "one\n");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("execute", { command: "echo by-hook > hooked.txt" }),
      toolTurn("write_file", { file_path: join(suite.project, "new.txt"), content: "x" }),
      toolTurn("edit_file", { file_path: join(suite.project, "b.txt"), old_string: "one", new_string: "uno" }),
      textTurn("ok"),
    );
    await h.prompt(sessionId, "go");
    expect((await payloads("PermissionRequest")).map((p) => p.tool_name)).toEqual(["Bash", "Write", "Edit"]);
    expect(await readFile(join(suite.project, "hooked.txt"), "utf8")).toBe("by-hook\n");
    expect(existsSync(join(suite.project, "new.txt"))).toBe(false);
    const results = toolResults(h.model.requests.at(-1)!);
    expect(results[1]).toMatchObject({ isError: true, text: expect.stringContaining("no new files today") });
    // Only the edit, which no hook decided, asked in the editor.
    expect(h.permissions).toHaveLength(1);
    expect(h.permissions[0]!.toolCall.kind).toBe("edit");
    expect(await readFile(join(suite.project, "b.txt"), "utf8")).toBe("uno\n");
  });
});

describe("hook feedback", () => {
  it("PostToolUse and PostToolUseFailure context is appended to the tool result the model sees", async () => {
    const context = (event: string, text: string) =>
      record(...output({ hookSpecificOutput: { hookEventName: event, additionalContext: text } }));
    const h = await suite.start({
      setupHome: userHooks({
        PostToolUse: group(context("PostToolUse", "Reminder: run the linter next."), "Bash"),
        PostToolUseFailure: group(context("PostToolUseFailure", "That file moved to docs/."), "Read"),
      }),
    });
    const { sessionId } = await h.newSession(suite.project);
    await setMode(sessionId, "bypass");
    h.model.enqueue(
      toolTurn("execute", { command: "echo out" }),
      toolTurn("read_file", { file_path: join(suite.project, "gone.md") }),
      textTurn("ok"),
    );
    await h.prompt(sessionId, "go");
    const [bash, read] = toolResults(h.model.requests.at(-1)!);
    expect(bash!.text).toContain("out");
    expect(bash!.text).toContain("Reminder: run the linter next.");
    expect(read).toMatchObject({ isError: true, text: expect.stringContaining("That file moved to docs/.") });
  });

  it("matching handlers run concurrently, and results are reduced project first, then user", async () => {
    const a = join(scratch, "project-started");
    const b = join(scratch, "user-started");
    const context = (text: string) =>
      output({ hookSpecificOutput: { hookEventName: "PostToolUse", additionalContext: text } });
    // Each waits for the other to start: run one after the other, the first would time out.
    await writeHooks(join(suite.project, ".deepagents"), {
      PostToolUse: group({ ...record("--touch", a, "--wait-for", b, ...context("from the project hook")), timeout: 8 }),
    });
    const h = await suite.start({
      setupHome: userHooks({
        PostToolUse: group({ ...record("--touch", b, "--wait-for", a, ...context("from the user hook")), timeout: 8 }),
      }),
      onPermission: () => "allow_always",
    });
    const { sessionId } = await h.newSession(suite.project);
    await setMode(sessionId, "bypass");
    h.model.enqueue(toolTurn("execute", { command: "echo both" }), textTurn("ok"));
    await h.prompt(sessionId, "go");
    const text = toolResults(h.model.requests.at(-1)!)[0]!.text;
    expect(text).toContain("from the project hook");
    expect(text).toContain("from the user hook");
    expect(text.indexOf("from the project hook")).toBeLessThan(text.indexOf("from the user hook"));
  });

  it("Stop keeps the turn going once, with stop_hook_active set on the second run", async () => {
    const block = output({ decision: "block", reason: "Also run the tests." });
    const h = await suite.start({
      setupHome: userHooks({ Stop: group(record("--if", "stop_hook_active=false", ...block)) }),
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("Done with the change."), textTurn("Tests pass too."));
    const { updates } = await h.prompt(sessionId, "change it");
    expect((await payloads("Stop")).map((p) => [p.stop_hook_active, p.last_assistant_message])).toEqual([
      [false, "Done with the change."],
      [true, "Tests pass too."],
    ]);
    expect(h.model.requests).toHaveLength(2);
    expect(h.model.requests[1]!.lastUserText).toBe("Also run the tests.");
    expect(agentText(updates)).toContain("Tests pass too.");
  });

  it("a Stop hook that always blocks gets at most 8 continuations", async () => {
    const h = await suite.start({
      clientCapabilities: NOTICES,
      setupHome: userHooks({ Stop: group(record(...output({ decision: "block", reason: "Keep going." }))) }),
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("still done"));
    const { response, updates } = await h.prompt(sessionId, "finish");
    expect(response.stopReason).toBe("end_turn");
    expect(h.model.requests).toHaveLength(9);
    expect((await payloads("Stop")).map((p) => p.stop_hook_active)).toEqual([
      false,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(noticeTitles(updates).join("\n")).toMatch(/8 times/);
  });

  it("a PreCompact hook that exits 2 blocks /compact and says why", async () => {
    const h = await suite.start({
      setupHome: userHooks({
        PreCompact: group(record("--stderr", "not during the release freeze", "--exit", "2"), "manual"),
      }),
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("noted"));
    for (const text of ["one", "two", "three", "four"]) await h.prompt(sessionId, text);
    const before = h.model.requests.length;
    const compact = await h.prompt(sessionId, "/compact");
    expect(agentText(compact.updates)).toContain("not during the release freeze");
    expect(compact.updates.some((u) => u.sessionUpdate === "compaction_update")).toBe(false);
    expect(h.model.requests).toHaveLength(before); // no summary was requested
    await h.prompt(sessionId, "five");
    expect(h.model.requests.at(-1)!.messages[0]!.text).toBe("one"); // the history is intact
  });
});

describe("the runner", () => {
  it("kills a hanging hook and its child at the timeout; the action proceeds and the editor is told", async () => {
    const h = await suite.start({
      clientCapabilities: NOTICES,
      setupHome: userHooks({ PreToolUse: group({ ...record("--hang"), timeout: 1 }, "Bash") }),
    });
    const { sessionId } = await h.newSession(suite.project);
    await setMode(sessionId, "bypass");
    h.model.enqueue(toolTurn("execute", { command: "echo still ran" }), textTurn("ok"));
    const { updates } = await h.prompt(sessionId, "go");
    expect(toolResults(h.model.requests[1]!)[0]!.text).toContain("still ran");
    const [hook] = await logged("PreToolUse");
    expect(await waitForExit(hook!.pid)).toBe(true);
    expect(await waitForExit(hook!.childPid!)).toBe(true);
    expect(noticeTitles(updates).join("\n")).toContain("timed out after 1s");
    expect(agentText((await h.prompt(sessionId, "/hooks")).updates)).toContain("timed out after 1s");
  });

  it("runs in the project root with CLAUDE_PROJECT_DIR, and without secrets in its environment", async () => {
    const cwd = join(suite.project, "src");
    await mkdir(cwd);
    const h = await suite.start({
      setupHome: async (home) => {
        await userHooks({ UserPromptSubmit: group(record()) })!(home);
        await writeFile(
          join(home, ".deepagents", "config.toml"),
          '[hooks]\npass_env = ["MY_SETTING", "ANTHROPIC_API_KEY"]\n',
        );
      },
      env: {
        MY_TOKEN: "t0ken",
        DB_PASSWORD: "hunter2",
        DB_PASS: "p",
        DATABASE_URL: "postgres://u:p@h/d",
        GH_PAT: "ghp",
        NPM_AUTH: "a",
        SENTRY_DSN: "https://k@s/1",
        AWS_SECRET_ACCESS_KEY: "s3cret",
        MY_SETTING: "visible",
        UNLISTED: "not-passed",
      },
    });
    const { sessionId } = await h.newSession(cwd);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    const [entry] = await logged("UserPromptSubmit");
    expect(entry!.payload.cwd).toBe(cwd);
    expect(entry!.cwd).toBe(suite.project);
    expect(entry!.env.CLAUDE_PROJECT_DIR).toBe(suite.project);
    expect(entry!.envNames).toContain("MY_SETTING");
    // A user hook gets the environment minus secrets: UNLISTED reaches it, no secret does (a model
    // key stays out even when [hooks] pass_env lists it). Project hooks get the allowlist
    // (test/e2e/attack-secrets.test.ts).
    expect(entry!.envNames).toContain("UNLISTED");
    for (const secret of [
      "ANTHROPIC_API_KEY",
      "MY_TOKEN",
      "DB_PASSWORD",
      "DB_PASS",
      "DATABASE_URL",
      "GH_PAT",
      "NPM_AUTH",
      "SENTRY_DSN",
      "AWS_SECRET_ACCESS_KEY",
    ]) {
      expect(entry!.envNames).not.toContain(secret);
    }
  });

  it("shows a hook with a statusMessage as a tool call while it runs", async () => {
    const release = join(scratch, "release");
    const h = await suite.start({
      setupHome: userHooks({
        UserPromptSubmit: group({ ...record("--wait-for", release), statusMessage: "Checking the prompt policy" }),
      }),
    });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    const turn = h.prompt(sessionId, "hi");
    const isStatus = (u: acp.SessionNotification) =>
      u.update.sessionUpdate === "tool_call" && u.update.title === "Checking the prompt policy";
    await h.waitFor(() => h!.updates.some(isStatus));
    const shown = h.updates.find(isStatus)!.update as Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" }>;
    expect(shown.status).toBe("in_progress");
    // Still running: nothing has finished it yet.
    expect(
      h.updates.filter(
        (u) => u.update.sessionUpdate === "tool_call_update" && u.update.toolCallId === shown.toolCallId,
      ),
    ).toHaveLength(0);
    await writeFile(release, "");
    await turn;
    expect(
      lastUpdate(
        h.updates.map((u) => u.update),
        shown.toolCallId,
      ),
    ).toMatchObject({ status: "completed" });
  });

  it("reports invalid hooks.json entries (notice, /hooks) and still runs the valid ones; /hooks lists them by event", async () => {
    const hooks = {
      PreToolUse: [
        { matcher: "Bash", hooks: [{ type: "http", url: "http://127.0.0.1:1/hook" }] },
        { matcher: "(unclosed", hooks: [record()] },
      ],
      UserPromptSubmit: [{ hooks: [record(), { type: "command", command: "echo broken >&2; exit 3" }] }],
      PostToolUse: "not a list",
      OnSave: [],
    };
    const h = await suite.start({ clientCapabilities: NOTICES, setupHome: userHooks(hooks) });
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    const { updates } = await h.prompt(sessionId, "hi");
    expect(await logged("UserPromptSubmit")).toHaveLength(1);
    const notices = noticeTitles(updates).join("\n");
    expect(notices).toContain(`"http" is not supported`);
    expect(notices).toContain("invalid regular expression");
    const listing = agentText((await h.prompt(sessionId, "/hooks")).updates);
    const userFile = join(h.home, ".deepagents", "hooks.json");
    expect(listing).toContain("### UserPromptSubmit");
    expect(listing).toContain(`(user: ${userFile}`);
    expect(listing).toContain("exited with code 3");
    expect(listing).not.toContain("### PreToolUse"); // both of its entries were invalid
    expect(listing).toContain("### Problems");
    expect(listing).toContain("hooks.PostToolUse: expected a list");
    expect(listing).toContain("hooks.OnSave: unknown event");
  });
});

describe("trusting project hooks in the editor", () => {
  const projectHooks = (hooks: Hooks = { UserPromptSubmit: group(record()) }) =>
    writeHooks(join(suite.project, ".deepagents"), hooks);
  const trustDialogs = () => suite.harness.permissions.filter((p) => p.toolCall.title === "Run this project's hooks?");
  const answering = (answer: "allow_once" | "allow_always" | "reject_once") => ({
    onPermission: (r: acp.RequestPermissionRequest) =>
      r.toolCall.title === "Run this project's hooks?" ? answer : "allow_once",
  });

  it("allow once runs them in this session and asks again in the next one", async () => {
    await projectHooks();
    const h = await suite.start(answering("allow_once"));
    const first = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("ok"));
    await h.prompt(first.sessionId, "hi");
    expect(trustDialogs()).toHaveLength(1);
    expect(JSON.stringify(trustDialogs()[0]!.toolCall.content)).toContain(RECORD);
    expect(trustDialogs()[0]!.options.map((o) => o.kind)).toEqual(["allow_once", "allow_always", "reject_once"]);
    await h.prompt(first.sessionId, "again");
    expect(trustDialogs()).toHaveLength(1);
    expect(await logged("UserPromptSubmit")).toHaveLength(2);

    const second = await h.newSession(suite.project);
    await h.prompt(second.sessionId, "hi");
    expect(trustDialogs()).toHaveLength(2);
    expect(await logged("UserPromptSubmit")).toHaveLength(3);
  });

  it("always is remembered for these exact bytes; a changed file asks again", async () => {
    const file = await projectHooks();
    const h = await suite.start(answering("allow_always"));
    h.model.setHandler(() => textTurn("ok"));
    await h.prompt((await h.newSession(suite.project)).sessionId, "hi");
    await h.prompt((await h.newSession(suite.project)).sessionId, "hi");
    expect(trustDialogs()).toHaveLength(1);
    expect(await logged("UserPromptSubmit")).toHaveLength(2);
    const state = JSON.parse(await readFile(join(h.home, ".deepagents", ".state", "hooks_trust.json"), "utf8"));
    expect(state.projects[suite.project].sha256).toBe(
      createHash("sha256")
        .update(await readFile(file))
        .digest("hex"),
    );

    await projectHooks({ UserPromptSubmit: group(record("--stdout", "changed")) });
    const { sessionId } = await h.newSession(suite.project);
    await h.prompt(sessionId, "hi");
    expect(trustDialogs()).toHaveLength(2);
    expect(JSON.stringify(trustDialogs()[1]!.toolCall.content)).toContain("changed");
    expect(await logged("UserPromptSubmit")).toHaveLength(3);
    expect(JSON.stringify(h.model.requests.at(-1)!.body)).toContain("changed");
  });

  it("reject keeps them from running, and /hooks says so", async () => {
    await projectHooks();
    const h = await suite.start(answering("reject_once"));
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    expect(trustDialogs()).toHaveLength(1);
    expect(await logged()).toHaveLength(0);
    expect(agentText((await h.prompt(sessionId, "/hooks")).updates)).toContain("rejected by the user");
  });
});
