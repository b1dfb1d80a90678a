// Skills, memory, subagents, plugins and the config watcher, end to end over ACP: what the editor is
// offered and told, and what the fake model receives. Plugins are installed with the built binary
// (`deep-acp plugins ...`) into the same HOME the in-process agent then uses.
import { existsSync } from "node:fs";
import { mkdir, readFile, realpath, symlink, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { beforeEach, describe, expect, it } from "vitest";
import { agentText, type HarnessOptions } from "../support/acp-harness.js";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { BINARY } from "../support/agent-process.js";
import { textTurn, toolTurn, type FakeTurn } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";
import { waitForExit, runCommand, type CommandResult } from "../support/processes.js";

const MARKET = resolve(__dirname, "../fixtures/e2e-plugins/market");
const MCP_SERVER = join(MARKET, "plugins", "kit", "mcp-server.mjs");
const NOTICES = { session: { notices: {} } } as acp.ClientCapabilities;

const suite = useHarnessSuite({ name: "ext", prepare: gitProject });

async function writeSkill(dir: string, name: string, frontmatter: string, body: string): Promise<void> {
  await mkdir(join(dir, name), { recursive: true });
  await writeFile(join(dir, name, "SKILL.md"), `---\n${frontmatter}\n---\n\n${body}\n`);
}
const skill = (dir: string, name: string, description: string, body = `Instructions of ${name}.`) =>
  writeSkill(dir, name, `name: ${name}\ndescription: ${description}`, body);

const userDir = (home: string, ...parts: string[]) => join(home, ".deepagents", "agent", ...parts);
const projectDir = (...parts: string[]) => join(suite.project, ".deepagents", ...parts);

/** The latest available_commands_update of a session. */
function commands(sessionId: string): string[] {
  const updates = suite.harness.updates.filter(
    (u) => u.sessionId === sessionId && u.update.sessionUpdate === "available_commands_update",
  );
  const last = updates.at(-1)?.update as { availableCommands: Array<{ name: string }> } | undefined;
  return last?.availableCommands.map((c) => c.name) ?? [];
}
/** The description of the /reload entry in a session's latest command list. */
function reloadEntry(sessionId: string): string {
  const updates = suite.harness.updates.filter(
    (u) => u.sessionId === sessionId && u.update.sessionUpdate === "available_commands_update",
  );
  const last = updates.at(-1)?.update as
    { availableCommands: Array<{ name: string; description: string }> } | undefined;
  return last?.availableCommands.find((c) => c.name === "reload")?.description ?? "";
}
const notices = (sessionId: string) =>
  suite.harness.updates
    .filter((u) => u.sessionId === sessionId && u.update.sessionUpdate === "notice")
    .map((u) => {
      const n = u.update as { title: string; description?: string };
      return `${n.title} ${n.description ?? ""}`;
    });
const changeNotices = (sessionId: string) => notices(sessionId).filter((n) => n.startsWith("Changed:"));

/**
 * Makes `edit` once the sessions' config watchers watch (they start in the background with each
 * session), then waits until every session shows exactly one "Changed:" notice matching `pattern`.
 */
async function editAndAwaitNotice(sessionIds: string[], pattern: RegExp, edit: () => Promise<void>): Promise<void> {
  await suite.harness.watchersReady(sessionIds.length);
  await edit();
  await suite.harness.waitFor(() => sessionIds.every((id) => changeNotices(id).some((n) => pattern.test(n))));
  expect(sessionIds.map((id) => changeNotices(id).filter((n) => pattern.test(n)).length)).toEqual(
    sessionIds.map(() => 1),
  );
}

function runCli(args: string[], home: string, cwd = suite.project): Promise<CommandResult> {
  return runCommand(process.execPath, [BINARY, ...args], { cwd, env: { PATH: process.env.PATH, HOME: home } });
}

describe("skills", () => {
  it("a project skill replaces a same-named user skill whole, in the prompt and in /skill:", async () => {
    const setupHome: HarnessOptions["setupHome"] = (home) =>
      writeSkill(
        userDir(home, "skills"),
        "deploy",
        "name: deploy\ndescription: USER way to deploy\nlicense: MIT",
        "USER DEPLOY BODY",
      );
    const h = await suite.start({ setupHome });
    await skill(projectDir("skills"), "deploy", "PROJECT way to deploy", "PROJECT DEPLOY BODY");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"), textTurn("deploying"));
    await h.prompt(sessionId, "hi");
    const system = h.model.requests[0]!.system;
    expect(system).toContain("**deploy**: PROJECT way to deploy\n");
    expect(system).not.toContain("USER way to deploy");
    // Nothing of the user skill is merged in (it had a license, the project one has none).
    expect(system.split("\n").find((line) => line.includes("**deploy**"))).toBe("- **deploy**: PROJECT way to deploy");
    await h.prompt(sessionId, "/skill:deploy now");
    const sent = h.model.requests[1]!.lastUserText;
    expect(sent).toContain("PROJECT DEPLOY BODY");
    expect(sent).not.toContain("USER DEPLOY BODY");
    expect(agentText((await h.prompt(sessionId, "/skills")).updates)).toContain(
      "`/skill:deploy` — PROJECT way to deploy _(Project)_",
    );
  });

  it("invalid skills become notices; the valid ones load; built-in remember and skill-creator are always there", async () => {
    const h = await suite.start({ clientCapabilities: NOTICES });
    const dir = projectDir("skills");
    await skill(dir, "lint", "Lint the project");
    await writeSkill(dir, "nodesc", "name: nodesc", "No description.");
    await writeSkill(dir, "broken-yaml", "name: [unclosed\ndescription: x", "Broken.");
    await writeSkill(dir, "folder-name", "name: other-name\ndescription: Named unlike its folder", "Body.");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    const shown = notices(sessionId).join("\n");
    expect(shown).toMatch(/missing required description.*nodesc|nodesc.*missing required description/s);
    expect(shown).toContain(join(dir, "broken-yaml", "SKILL.md"));
    expect(shown).toContain("does not match directory name 'folder-name'");
    const system = h.model.requests[0]!.system;
    for (const name of ["lint", "other-name", "remember", "skill-creator"]) expect(system).toContain(`**${name}**`);
    expect(system).not.toContain("**nodesc**");
    const listed = agentText((await h.prompt(sessionId, "/skills")).updates);
    for (const name of ["lint", "other-name", "remember", "skill-creator"])
      expect(listed).toContain(`/skill:${name}\``);
    expect(listed).not.toContain("nodesc");
    expect(commands(sessionId)).toEqual(
      expect.arrayContaining(["skill:lint", "skill:remember", "skill:skill-creator"]),
    );
  });

  describe("a skill folder that is a symlink out of the skill directories", () => {
    let outside: string;
    beforeEach(async () => {
      outside = await suite.tempDir("outside");
      await skill(outside, "shared-tool", "Shared team tooling", "SHARED TOOL BODY");
      await mkdir(projectDir("skills"), { recursive: true });
      await symlink(join(outside, "shared-tool"), projectDir("skills", "shared-tool"));
    });
    const linkDialogs = () =>
      suite.harness.permissions.filter(
        (p) => p.toolCall.title === 'Load skill "shared-tool" from outside the skill folders?',
      );

    it("asks in the editor; approved, it loads and is remembered by its target", async () => {
      const h = await suite.start({ onPermission: () => "allow_always" });
      const first = await h.newSession(suite.project);
      h.model.setHandler(() => textTurn("ok"));
      await h.prompt(first.sessionId, "hi");
      expect(linkDialogs()).toHaveLength(1);
      expect(JSON.stringify(linkDialogs()[0]!.toolCall.content)).toContain(join(outside, "shared-tool"));
      expect(h.model.requests[0]!.system).toContain("**shared-tool**: Shared team tooling");
      expect(commands(first.sessionId)).toContain("skill:shared-tool");
      await h.prompt(first.sessionId, "/skill:shared-tool");
      expect(h.model.requests.at(-1)!.lastUserText).toContain("SHARED TOOL BODY");
      const trusted = JSON.parse(await readFile(join(h.home, ".deepagents", ".state", "skill_trust.json"), "utf8"));
      expect(Object.keys(trusted.dirs)).toEqual([await realpath(join(outside, "shared-tool"))]);

      const second = await h.newSession(suite.project);
      await h.prompt(second.sessionId, "hi");
      expect(linkDialogs()).toHaveLength(1);
      expect(h.model.requests.at(-1)!.system).toContain("**shared-tool**");
      await h.waitFor(() => commands(second.sessionId).includes("skill:shared-tool"));
    });

    it("rejected, it does not load", async () => {
      const h = await suite.start({ onPermission: () => "reject_once" });
      const { sessionId } = await h.newSession(suite.project);
      h.model.enqueue(textTurn("ok"));
      await h.prompt(sessionId, "hi");
      expect(linkDialogs()).toHaveLength(1);
      expect(h.model.requests[0]!.system).not.toContain("shared-tool");
      expect(agentText((await h.prompt(sessionId, "/skill:shared-tool")).updates)).toContain(
        'There is no skill named "shared-tool"',
      );
    });

    it("[skills].extra_allowed_dirs allows it without a dialog", async () => {
      const h = await suite.start({
        setupHome: async (home) => {
          await mkdir(join(home, ".deepagents"), { recursive: true });
          await writeFile(
            join(home, ".deepagents", "config.toml"),
            `[skills]\nextra_allowed_dirs = [${JSON.stringify(outside)}]\n`,
          );
        },
      });
      const { sessionId } = await h.newSession(suite.project);
      h.model.enqueue(textTurn("ok"));
      await h.prompt(sessionId, "hi");
      expect(linkDialogs()).toHaveLength(0);
      expect(h.model.requests[0]!.system).toContain("**shared-tool**: Shared team tooling");
    });
  });
});

describe("memory", () => {
  it("concatenates user, project .deepagents and project root AGENTS.md in that order", async () => {
    const h = await suite.start({
      setupHome: async (home) => {
        await mkdir(userDir(home), { recursive: true });
        await writeFile(userDir(home, "AGENTS.md"), "USER-MEMORY: prefers tabs.");
      },
    });
    await mkdir(projectDir(), { recursive: true });
    await writeFile(projectDir("AGENTS.md"), "DOT-DEEPAGENTS-MEMORY: run make check.");
    await writeFile(join(suite.project, "AGENTS.md"), "ROOT-MEMORY: this is a monorepo.");
    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("ok"));
    await h.prompt(sessionId, "hi");
    const system = h.model.requests[0]!.system;
    const at = ["USER-MEMORY", "DOT-DEEPAGENTS-MEMORY", "ROOT-MEMORY"].map((marker) => system.indexOf(marker));
    expect(at.every((i) => i >= 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    expect(system.indexOf(userDir(h.home, "AGENTS.md"))).toBeLessThan(at[0]!);
  });

  it("files under /memories/ outlive the session and the agent process", async () => {
    const h = await suite.start();
    const first = await h.newSession(suite.project);
    h.model.enqueue(
      toolTurn("write_file", { file_path: "/memories/preferences.md", content: "Use tabs, not spaces." }),
      textTurn("saved"),
    );
    await h.prompt(first.sessionId, "remember that I use tabs");
    expect(h.permissions).toHaveLength(1); // memory edits are approved like any other edit
    await h.close();

    const next = await suite.start();
    const second = await next.newSession(suite.project);
    next.model.enqueue(toolTurn("read_file", { file_path: "/memories/preferences.md" }), textTurn("you use tabs"));
    await next.prompt(second.sessionId, "what do I use?");
    const result = next.model.requests[1]!.messages.find((m) => m.role === "tool")!;
    expect(result.isError).toBe(false);
    expect(result.text).toContain("Use tabs, not spaces.");
    expect(await readFile(userDir(suite.home, "memories", "preferences.md"), "utf8")).toBe("Use tabs, not spaces.");
  });
});

describe("subagents", () => {
  const define = async (dir: string, name: string, text: string) => {
    await mkdir(join(dir, name), { recursive: true });
    await writeFile(join(dir, name, "AGENTS.md"), text);
  };

  it("a project subagent overrides a user one of the same name; an invalid file is a notice; an unknown type is an error for the model", async () => {
    const h = await suite.start({
      clientCapabilities: NOTICES,
      setupHome: (home) =>
        define(
          userDir(home, "agents"),
          "reviewer",
          "---\nname: reviewer\ndescription: USER reviewer\n---\nUSER REVIEWER PROMPT",
        ),
    });
    await define(
      projectDir("agents"),
      "reviewer",
      "---\nname: reviewer\ndescription: PROJECT reviewer\n---\nPROJECT REVIEWER PROMPT",
    );
    await define(projectDir("agents"), "broken", "---\nname: broken\n---\nNo description.");
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler((request): FakeTurn => {
      if (request.system.includes("REVIEWER PROMPT")) return textTurn("review done");
      if (request.messages.length === 1) {
        return {
          parts: [
            { type: "tool_call", name: "task", input: { description: "review", subagent_type: "reviewer" } },
            { type: "tool_call", name: "task", input: { description: "fix", subagent_type: "fixer" } },
          ],
        };
      }
      return textTurn("ok");
    });
    await h.prompt(sessionId, "review it");
    const subagentRequests = h.model.requests.filter((r) => r.system.includes("REVIEWER PROMPT"));
    expect(subagentRequests).toHaveLength(1);
    expect(subagentRequests[0]!.system.startsWith("PROJECT REVIEWER PROMPT")).toBe(true);
    const task = JSON.stringify(h.model.requests[0]!.body.tools.find((t: { name: string }) => t.name === "task"));
    expect(task).toContain("reviewer: PROJECT reviewer");
    expect(task).not.toContain("USER reviewer");
    expect(task).not.toContain("broken");
    expect(notices(sessionId).join("\n")).toContain(join(projectDir("agents"), "broken", "AGENTS.md"));
    const [review, unknown] = h.model.requests.at(-1)!.messages.filter((m) => m.role === "tool");
    expect(review).toMatchObject({ isError: false, text: "review done" });
    expect(unknown!.isError).toBe(true);
    expect(unknown!.text).toContain("invoked agent of type fixer, the only allowed types are");
  });

  it("cancelling the turn stops a running subagent and kills its command", async () => {
    const scratch = await suite.tempDir("scratch");
    const pidFile = join(scratch, "pid");
    const h = await suite.start();
    const { sessionId } = await h.newSession(suite.project);
    await h.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    h.model.setHandler((request): FakeTurn => {
      if (request.system.includes("You are a subagent"))
        return toolTurn("execute", { command: `sh -c 'echo $$ > ${pidFile}; exec sleep 1000'` });
      return request.messages.length === 1
        ? toolTurn("task", { description: "long job", subagent_type: "general-purpose" })
        : textTurn("finished");
    });
    const turn = h.prompt(sessionId, "start the long job");
    // The command runs in a subagent: the pid file it writes is the only sign that it started.
    await pollUntil(
      async () => existsSync(pidFile) && (await readFile(pidFile, "utf8")).trim() !== "",
      "the subagent's command to start",
      { timeoutMs: 15_000 },
    );
    const pid = Number((await readFile(pidFile, "utf8")).trim());
    const requestsBefore = h.model.requests.length;
    await h.cancel(sessionId);
    const { response } = await turn;
    expect(response.stopReason).toBe("cancelled");
    expect(await waitForExit(pid)).toBe(true);
    expect(h.model.requests).toHaveLength(requestsBefore);
  });
});

describe("plugins", () => {
  it("enabled with the CLI, a plugin brings its skill, MCP server and hook; disabled, /reload removes them", async () => {
    expect((await runCli(["plugins", "add", MARKET], suite.home)).code).toBe(0);
    for (const id of ["kit@market", "escapee@market"])
      expect((await runCli(["plugins", "enable", id, "--force"], suite.home)).code).toBe(0);
    const installed = await realpath(join(suite.home, ".deepagents", "plugins"));

    const h = await suite.start({ clientCapabilities: NOTICES });
    const { sessionId } = await h.newSession(suite.project);
    await h.waitFor(() => commands(sessionId).includes("skill:kit@market:greet"));
    const mcpTool = (names: string[]) => names.find((n) => /^plugin__kit_market_[0-9a-f]{8}__notes_lookup$/.test(n));
    h.model.setHandler((request): FakeTurn => {
      const tool = mcpTool(request.toolNames);
      return request.messages.length === 1 && tool ? toolTurn(tool, { topic: "deploys" }) : textTurn("ok");
    });
    await h.prompt(sessionId, "look it up");
    const first = h.model.requests[0]!;
    expect(mcpTool(first.toolNames)).toBeDefined();
    expect(first.lastUserText).toContain(`kit hook ran in ${installed}`);
    expect(first.lastUserText).toContain(`with data in ${join(installed, "data")}`);
    expect(h.model.requests[1]!.messages.find((m) => m.role === "tool")!.text).toContain(
      `note about deploys (from ${installed}`,
    );
    // The escaping plugin's component paths are reported, and none of them loaded.
    const problems = notices(sessionId)
      .filter((n) => n.includes("escapee@market"))
      .join("\n");
    expect(problems).toContain("must not contain '..'");
    expect(problems).toContain("must start with './'");
    expect(commands(sessionId).filter((c) => c.includes("escapee"))).toEqual([]);

    await h.prompt(sessionId, "/skill:kit@market:greet");
    expect(h.model.requests.at(-1)!.lastUserText).toContain("KIT GREETING BODY");

    expect((await runCli(["plugins", "disable", "kit@market"], suite.home)).code).toBe(0);
    await h.waitFor(() => changeNotices(sessionId).some((n) => n.includes("plugins")));
    const reload = agentText((await h.prompt(sessionId, "/reload")).updates);
    expect(reload).toContain("-kit@market");
    expect(commands(sessionId)).not.toContain("skill:kit@market:greet");
    await h.prompt(sessionId, "again");
    const after = h.model.requests.at(-1)!;
    expect(after.toolNames.filter((n) => n.startsWith("plugin__"))).toEqual([]);
    expect(after.lastUserText).not.toContain("kit hook ran");
  });
});

describe("the watcher and /reload", () => {
  it("an AGENTS.md edit tells the editor once; /reload applies it with a summary; later edits tell it again", async () => {
    const h = await suite.start({ clientCapabilities: NOTICES });
    await writeFile(join(suite.project, "AGENTS.md"), "Old rule.");
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("ok"));
    await editAndAwaitNotice([sessionId], /memory/, () =>
      writeFile(join(suite.project, "AGENTS.md"), "New rule: always test."),
    );
    const seen = h.watchChanges.length;
    await writeFile(join(suite.project, "AGENTS.md"), "Newest rule: always test twice.");
    // The session's watcher passed the second edit on; a second notice would be on its way now, and
    // /reload's answer comes after it.
    await h.waitFor(() => h!.watchChanges.length > seen);
    const reload = agentText((await h.prompt(sessionId, "/reload")).updates);
    expect(changeNotices(sessionId)).toHaveLength(1);
    expect(changeNotices(sessionId)[0]).toContain("Run /reload");
    expect(reload).toContain("**Reloaded**");
    expect(reload).toContain("Memory: reloaded");
    await h.prompt(sessionId, "go");
    expect(h.model.requests.at(-1)!.system).toContain("Newest rule: always test twice.");
    expect(h.model.requests.at(-1)!.system).not.toContain("Old rule.");

    await h.watchersReady();
    await writeFile(join(suite.project, "AGENTS.md"), "Another rule.");
    await h.waitFor(() => changeNotices(sessionId).length === 2);
  });

  it("new hooks.json and .mcp.json files are noticed; /reload starts the hook and the MCP server", async () => {
    const h = await suite.start({ clientCapabilities: NOTICES });
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("ok"));
    await h.prompt(sessionId, "hi");
    expect(h.model.requests[0]!.toolNames.some((n) => n.startsWith("notes_"))).toBe(false);
    const root = join(h.home, ".deepagents");
    await editAndAwaitNotice([sessionId], /hooks|mcp/, async () => {
      await mkdir(root, { recursive: true });
      await writeFile(
        join(root, "hooks.json"),
        JSON.stringify({
          hooks: { UserPromptSubmit: [{ hooks: [{ type: "command", command: "echo HOOK-FROM-RELOAD" }] }] },
        }),
      );
      await writeFile(
        join(root, ".mcp.json"),
        JSON.stringify({ mcpServers: { notes: { command: process.execPath, args: [MCP_SERVER] } } }),
      );
    });
    const reload = agentText((await h.prompt(sessionId, "/reload")).updates);
    expect(reload).toContain("MCP servers: +notes");
    expect(reload).toContain("Hooks: 1 handler(s) loaded");
    await h.prompt(sessionId, "again");
    const after = h.model.requests.at(-1)!;
    expect(after.toolNames).toContain("notes_lookup");
    expect(after.lastUserText).toContain("HOOK-FROM-RELOAD");
  });

  it("without session.notices the change is shown at the next turn instead", async () => {
    const h = await suite.start();
    await writeFile(join(suite.project, "AGENTS.md"), "Old rule.");
    const { sessionId } = await h.newSession(suite.project);
    h.model.setHandler(() => textTurn("ok"));
    await h.watchersReady();
    await writeFile(join(suite.project, "AGENTS.md"), "New rule.");
    // Without notices, the pending change shows first in the /reload entry of the command list.
    await h.waitFor(() => reloadEntry(sessionId).startsWith("Pending:"));
    const { updates } = await h.prompt(sessionId, "ping");
    const shown = updates.filter(
      (u) => u.sessionUpdate === "agent_thought_chunk" && JSON.stringify(u).includes("Changed: memory"),
    );
    expect(shown).toHaveLength(1);
    expect(h.updates.some((u) => u.update.sessionUpdate === "notice")).toBe(false);
  });

  it("two sessions on one root are both told; closing one leaves the other watching", async () => {
    const h = await suite.start({ clientCapabilities: NOTICES });
    await writeFile(join(suite.project, "AGENTS.md"), "v0");
    const a = await h.newSession(suite.project);
    const b = await h.newSession(suite.project);
    let version = 0;
    await editAndAwaitNotice([a.sessionId, b.sessionId], /memory/, () =>
      writeFile(join(suite.project, "AGENTS.md"), `v${++version}`),
    );
    await h.agent.request("session/close", { sessionId: a.sessionId });
    await h.prompt(b.sessionId, "/reload");
    // Count b's notices from the reload on.
    h.updates.splice(
      0,
      h.updates.length,
      ...h.updates.filter((u) => !(u.sessionId === b.sessionId && u.update.sessionUpdate === "notice")),
    );
    await editAndAwaitNotice([b.sessionId], /memory/, () =>
      writeFile(join(suite.project, "AGENTS.md"), `v${++version}`),
    );
    expect(changeNotices(a.sessionId)).toHaveLength(1);
  });
});
