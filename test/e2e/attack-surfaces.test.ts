// Attack suite, round 3: files that decide what runs on the host, reached by another name. The
// attacker controls the repository, `.git` included: `.git` as a `gitdir:` file or a link to another
// folder, `.git/hooks` and `.vscode` linked elsewhere in the repository, `core.hooksPath` and
// `include.path` pointing at ordinary-looking files. The model then plants a hook or a config there
// (a file tool in accept-edits, or a command in the bubblewrap sandbox), which would run on the host
// at the next `git status` or commit. Built binary, fake model, an editor that rejects file dialogs.
import { existsSync } from "node:fs";
import { mkdir, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startAgentProcess, type JsonRpcMessage } from "../support/agent-process.js";
import { git, useAttackSession, type Call } from "../support/attack-harness.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const s = useAttackSession("deep-acp-attack-surf-", async (base) => {
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(home);
  await mkdir(project);
  git(home, project, "init", "-q");
  await writeFile(join(project, "ok.txt"), "ordinary\n");
  return { home, project };
});
const p = (name: string) => join(s.project, name);
const PLANT = "[core]\n\tfsmonitor = touch /tmp/pwned\n";

/** `.git` as a `gitdir: store` file, hooks in scripts/githooks, config including ../shared.gitconfig, `.vscode -> editor`. */
async function redirectedRepository(): Promise<void> {
  await rename(p(".git"), p("store"));
  await writeFile(p(".git"), "gitdir: store\n");
  git(s.home, s.project, "config", "core.hooksPath", "scripts/githooks");
  git(s.home, s.project, "config", "include.path", "../shared.gitconfig");
  await mkdir(p("scripts/githooks"), { recursive: true });
  await writeFile(p("shared.gitconfig"), "[user]\n\tname = someone\n");
  await mkdir(p("editor"));
  await symlink("editor", p(".vscode"));
}

/** `.git -> gitstore`, and its hooks folder a link to tools/hooks. */
async function linkedRepository(): Promise<void> {
  await rename(p(".git"), p("gitstore"));
  await symlink("gitstore", p(".git"));
  await rm(p("gitstore/hooks"), { recursive: true, force: true });
  await mkdir(p("tools/hooks"), { recursive: true });
  await symlink("../tools/hooks", p("gitstore/hooks"));
}

type Answer = (dialog: JsonRpcMessage) => "allow_once" | "reject_once";

async function run(calls: Call[], answer: Answer, args: string[] = []) {
  s.agent = await startAgentProcess({
    cwd: s.project,
    args,
    env: { HOME: s.home, ANTHROPIC_API_KEY: "sk-ant-surf", ANTHROPIC_BASE_URL: s.model.anthropicBaseUrl },
    onRequest: (m) => {
      if (m.method !== "session/request_permission") throw new Error(`unexpected ${m.method}`);
      s.dialogs.push(m);
      const option = m.params.options.find((o: { kind: string }) => o.kind === answer(m));
      return { outcome: { outcome: "selected", optionId: option.optionId } };
    },
  });
  await s.agent.initialize({});
  const { result } = await s.agent.request("session/new", { cwd: s.project, mcpServers: [] });
  await s.agent.request("session/set_mode", { sessionId: result.sessionId, modeId: "accept-edits" });
  let next = 0;
  s.model.setHandler(() => (next < calls.length ? toolTurn(calls[next]![0], calls[next++]![1]) : textTurn("done")));
  const response = await s.agent.request("session/prompt", {
    sessionId: result.sessionId,
    prompt: [{ type: "text", text: "go" }],
  });
  expect(response.result.stopReason).toBe("end_turn");
  expect(next).toBe(calls.length);
}

const dialogText = (m: JsonRpcMessage) =>
  [m.params.toolCall.title, ...(m.params.toolCall.content ?? []).map((c: any) => c.content?.text ?? "")].join("\n");
const offersAlways = (m: JsonRpcMessage) => m.params.options.some((o: { kind: string }) => o.kind === "allow_always");
const toolOutput = () =>
  s.model.requests
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .map((m) => m.text)
    .join("\n");

describe("attack: protected paths by another name, accept-edits", () => {
  it("a gitdir: file, core.hooksPath, include.path and a linked .vscode: every plant asks, never 'always'", async () => {
    await redirectedRepository();
    const config = await readFile(p("store/config"), "utf8");
    const plants: Call[] = [
      ["write_file", { file_path: p("store/config"), content: PLANT }],
      ["write_file", { file_path: p("store/hooks/pre-commit"), content: "#!/bin/sh\ntouch /tmp/pwned\n" }],
      ["write_file", { file_path: p("scripts/githooks/pre-commit"), content: "#!/bin/sh\ntouch /tmp/pwned\n" }],
      ["edit_file", { file_path: p("shared.gitconfig"), old_string: "[user]", new_string: PLANT + "[user]" }],
      ["write_file", { file_path: p("editor/tasks.json"), content: '{"tasks":[]}' }],
      ["delete", { file_path: p("scripts/githooks") }],
    ];
    await run(plants, () => "reject_once");
    expect(s.dialogs.map((d) => d.params.toolCall.rawInput.file_path)).toEqual(
      plants.map(([, input]) => input.file_path),
    );
    expect(s.dialogs.filter(offersAlways)).toEqual([]);
    // The dialog says what the file is to git, by its real path.
    expect(dialogText(s.dialogs[0]!)).toMatch(new RegExp(`${p("store/config")}.*git`, "s"));
    expect(dialogText(s.dialogs[2]!)).toMatch(/hooks/);
    expect(dialogText(s.dialogs[3]!)).toMatch(new RegExp(`${p("shared.gitconfig")}.*git`, "s"));
    expect(await readFile(p("store/config"), "utf8")).toBe(config);
    expect(await readFile(p("shared.gitconfig"), "utf8")).toBe("[user]\n\tname = someone\n");
    for (const planted of ["store/hooks/pre-commit", "scripts/githooks/pre-commit", "editor/tasks.json"])
      expect(existsSync(p(planted))).toBe(false);
    expect(existsSync(p("scripts/githooks"))).toBe(true);
  });

  it(".git linked to another folder and its hooks to tools/hooks; husky's folder: every plant asks", async () => {
    await linkedRepository();
    const config = await readFile(p("gitstore/config"), "utf8");
    const plants: Call[] = [
      ["write_file", { file_path: p("gitstore/config"), content: PLANT }],
      ["write_file", { file_path: p("tools/hooks/post-checkout"), content: "#!/bin/sh\ntouch /tmp/pwned\n" }],
      ["write_file", { file_path: p(".husky/pre-commit"), content: "touch /tmp/pwned\n" }],
    ];
    await run(plants, () => "reject_once");
    expect(s.dialogs.map((d) => d.params.toolCall.rawInput.file_path)).toEqual(
      plants.map(([, input]) => input.file_path),
    );
    expect(s.dialogs.filter(offersAlways)).toEqual([]);
    expect(await readFile(p("gitstore/config"), "utf8")).toBe(config);
    expect(existsSync(p("tools/hooks/post-checkout"))).toBe(false);
    expect(existsSync(p(".husky"))).toBe(false);
  });

  it("ordinary edits next to them ask nothing", async () => {
    await redirectedRepository();
    await run(
      [
        ["write_file", { file_path: p("scripts/build.sh"), content: "echo build\n" }],
        ["edit_file", { file_path: p("ok.txt"), old_string: "ordinary", new_string: "changed" }],
        ["write_file", { file_path: p("editorial.md"), content: "# notes\n" }],
      ],
      () => "reject_once",
    );
    expect(s.dialogs).toEqual([]);
    expect(await readFile(p("ok.txt"), "utf8")).toBe("changed\n");
  });
});

describe.skipIf(!existsSync("/usr/bin/bwrap"))("attack: the sandbox keeps the same plants out", () => {
  const commandsOnly: Answer = (d) => (d.params.toolCall.rawInput?.command ? "allow_once" : "reject_once");

  it("a gitdir: file, core.hooksPath and include.path targets are read-only to a sandboxed command", async () => {
    await redirectedRepository();
    const config = await readFile(p("store/config"), "utf8");
    const command = [
      `printf '${PLANT.replace(/\n/g, "\\n").replace(/\t/g, "\\t")}' >> store/config`,
      "echo x > store/hooks/pre-commit",
      "echo x > scripts/githooks/pre-commit",
      "echo '[core] fsmonitor = x' >> shared.gitconfig",
      "echo x > editor/tasks.json",
      "echo ok > fine.txt",
      "echo finished",
    ].join("; ");
    await run([["execute", { command }]], commandsOnly, ["--sandbox", "bwrap"]);
    expect(toolOutput()).toContain("finished");
    expect(toolOutput()).toContain("Read-only file system");
    expect(await readFile(p("store/config"), "utf8")).toBe(config);
    expect(await readFile(p("shared.gitconfig"), "utf8")).toBe("[user]\n\tname = someone\n");
    for (const planted of ["store/hooks/pre-commit", "scripts/githooks/pre-commit", "editor/tasks.json"])
      expect(existsSync(p(planted))).toBe(false);
    expect(await readFile(p("fine.txt"), "utf8")).toBe("ok\n");
  });

  it(".git linked to another folder and its hooks to tools/hooks are read-only to a sandboxed command", async () => {
    await linkedRepository();
    const config = await readFile(p("gitstore/config"), "utf8");
    const command = "echo '[core] fsmonitor = x' >> gitstore/config; echo x > tools/hooks/post-checkout; echo finished";
    await run([["execute", { command }]], commandsOnly, ["--sandbox", "bwrap"]);
    expect(toolOutput()).toContain("finished");
    expect(await readFile(p("gitstore/config"), "utf8")).toBe(config);
    expect(existsSync(p("tools/hooks/post-checkout"))).toBe(false);
  });
});
