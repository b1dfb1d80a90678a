// Attack suite, commands and protected files: "always allow" must cover exactly what the dialog
// said, files that decide what runs are never changed without a dialog, and a remembered command
// approval ends when the agent edits what that command runs. Built binary, fake model.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  commandOf,
  commandSession,
  git,
  offersAlways,
  useAttackSession,
  type CommandChoice,
} from "../support/attack-harness.js";

const s = useAttackSession("deep-acp-attack-cmd-", async (base) => {
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(home);
  await mkdir(project);
  git(home, project, "init", "-q");
  await writeFile(
    join(project, "package.json"),
    JSON.stringify({ name: "p", version: "1.0.0", scripts: { test: "echo tested" } }, null, 2),
  );
  return { home, project };
});

const session = (mode: "default" | "accept-edits", choose?: CommandChoice) => commandSession(s, mode, choose);

describe("attack: command approvals", () => {
  it("never offers 'always' for wrappers, interpreters, dangerous options or paths outside the project", async () => {
    const marker = join(s.base, "ran");
    const hostile = [
      `env touch ${marker}`,
      `timeout 5 touch ${marker}`,
      "xargs echo",
      `sh -c touch`,
      `node -e 1`,
      `python3 -c 1`,
      `npx cowsay`,
      `find . -name x -delete`,
      `find ${s.base} -name x`,
      `git diff --output=${marker}`,
      `git -c core.pager=cat log`,
      `git -C ${s.base} status`,
      `npm test --script-shell=${marker}`,
      `cat ${join(s.home, "x")}`,
      `git config core.fsmonitor x`,
      `${join(s.base, "git")} status`,
    ];
    const run = await session("default");
    await run(hostile.map((command) => ["execute", { command }]));
    expect(s.dialogs.map(commandOf)).toEqual(hostile);
    expect(s.dialogs.filter(offersAlways).map(commandOf)).toEqual([]);
    expect(existsSync(marker)).toBe(false);
  });

  it("'always' for git --version and /usr/bin/git status covers only what the dialog said", async () => {
    const run = await session("default", (d) =>
      ["git --version", "/usr/bin/git status"].includes(commandOf(d)) ? "allow_always" : "reject_once",
    );
    await run([
      ["execute", { command: "git --version" }],
      ["execute", { command: "/usr/bin/git status" }],
      // Covered: exactly the same command, and git status by its plain name.
      ["execute", { command: "git --version" }],
      ["execute", { command: "git status" }],
      // Not covered.
      ["execute", { command: "git log" }],
      ["execute", { command: "git status --porcelain; touch x" }],
    ]);
    expect(s.dialogs.map(commandOf)).toEqual([
      "git --version",
      "/usr/bin/git status",
      "git log",
      "git status --porcelain; touch x",
    ]);
    expect(s.dialogs[0]!.params.options.find((o: { kind: string }) => o.kind === "allow_always").name).toContain(
      "git --version",
    );
    expect(existsSync(join(s.project, "x"))).toBe(false);
  });

  it("a remembered `npm test` asks again after the agent edits package.json", async () => {
    const run = await session("accept-edits", (d) =>
      commandOf(d) === "npm test" && s.dialogs.length === 1 ? "allow_always" : "reject_once",
    );
    await run([
      ["execute", { command: "npm test" }],
      ["execute", { command: "npm test" }],
      [
        "edit_file",
        { file_path: join(s.project, "package.json"), old_string: "echo tested", new_string: "echo changed" },
      ],
      ["execute", { command: "npm test" }],
    ]);
    // The first run asked and was remembered; the second did not ask; the edit (accept-edits) did
    // not ask; the run after it asked again.
    expect(s.dialogs.map(commandOf)).toEqual(["npm test", "npm test"]);
    expect(await readFile(join(s.project, "package.json"), "utf8")).toContain("echo changed");
  });
});

describe("attack: a link planted mid-turn by an approved command", () => {
  it("is resolved when the next file tool uses it: the read asks and nothing leaks", async () => {
    const secret = join(s.home, "secret.txt");
    await writeFile(secret, "PLANTED-SECRET\n");
    const run = await session("accept-edits", (d) => (commandOf(d).startsWith("ln ") ? "allow_once" : "reject_once"));
    await run([
      ["execute", { command: `ln -s ${secret} planted.txt` }],
      ["read_file", { file_path: join(s.project, "planted.txt") }],
      ["grep", { pattern: "PLANTED", path: join(s.project, "planted.txt") }],
      ["write_file", { file_path: join(s.project, "planted.txt"), content: "PWNED" }],
    ]);
    expect(s.dialogs).toHaveLength(4);
    expect(JSON.stringify(s.dialogs[1]!.params)).toContain(secret);
    expect(JSON.stringify(s.model.requests.map((r) => r.body))).not.toContain("PLANTED-SECRET");
    expect(await readFile(secret, "utf8")).toBe("PLANTED-SECRET\n");
  });
});

describe("attack: files that decide what runs", () => {
  it("asks before changing protected paths in accept-edits and never offers 'always'", async () => {
    const protectedFiles = [
      ".git/config",
      ".git/hooks/pre-commit",
      ".deepagents/hooks.json",
      ".mcp.json",
      ".vscode/tasks.json",
      ".claude/settings.json",
      ".envrc",
      ".npmrc",
      ".idea/workspace.xml",
    ];
    const run = await session("accept-edits", () => "allow_always");
    const before = await readFile(join(s.project, ".git", "config"), "utf8");
    await run(protectedFiles.map((f) => ["write_file", { file_path: join(s.project, f), content: "planted" }]));
    expect(s.dialogs).toHaveLength(protectedFiles.length);
    expect(s.dialogs.filter(offersAlways)).toEqual([]);
    // "always" was not offered, so the rejecting fallback applied: nothing was written.
    expect(await readFile(join(s.project, ".git", "config"), "utf8")).toBe(before);
    for (const f of protectedFiles.slice(1)) expect(existsSync(join(s.project, f))).toBe(false);
  });
});
