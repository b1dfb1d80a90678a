// Attack suite, round 4: read-only by path is not enough. A sandboxed command cannot write git's
// hooks folder, but it can rename the folder above it and make a new one (`mv tools tools.old`), turn
// a linked `.git` into a real folder with its own hooks, or create a `core.hooksPath` folder that did
// not exist. Each would run on the host at the user's next `git commit`. Built binary under
// `--sandbox bwrap`, fake model, bypass mode (the sandbox is the boundary); after the session the
// host's own `git commit` must run only the hooks it ran before.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, readlink, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git, runAttack, useAttackSession, type Call } from "../support/attack-harness.js";

const s = useAttackSession("deep-acp-attack-held-", async (base) => {
  const home = join(base, "home");
  const project = join(base, "project");
  await mkdir(join(home, ".deepagents"), { recursive: true });
  await writeFile(join(home, ".deepagents", "config.toml"), '[sandbox]\nkind = "bwrap"\n');
  await mkdir(project);
  git(home, project, "init", "-q");
  git(home, project, "config", "user.email", "t@example.com");
  git(home, project, "config", "user.name", "t");
  await writeFile(join(project, "ok.txt"), "ordinary\n");
  return { home, project };
});
const p = (name: string) => join(s.project, name);
const pwned = () => join(s.base, "pwned");
const GOOD = "#!/bin/sh\nexit 0\n";

/** The user's next commit on the host, with git's hooks as the repository now has them. */
function hostCommit(): void {
  execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "host"], {
    cwd: s.project,
    env: { PATH: process.env.PATH, HOME: s.home, GIT_CONFIG_NOSYSTEM: "1" },
    stdio: "ignore",
  });
}
const toolOutput = () =>
  s.model.requests
    .at(-1)!
    .messages.filter((m) => m.role === "tool")
    .map((m) => m.text)
    .join("\n");
const sh = (text: string) => `printf '%s\\n' '#!/bin/sh' '${text}'`;

describe.skipIf(!existsSync("/usr/bin/bwrap"))("attack: a sandboxed command moves what is read-only", () => {
  it("renaming the parent of core.hooksPath and planting a new hooks folder leaves the host's hooks as they were", async () => {
    git(s.home, s.project, "config", "core.hooksPath", "tools/githooks");
    await mkdir(p("tools/githooks"), { recursive: true });
    await writeFile(p("tools/githooks/pre-commit"), GOOD);
    await chmod(p("tools/githooks/pre-commit"), 0o755);
    const command = `mv tools tools.old; mkdir -p tools/githooks && ${sh(`touch ${pwned()}`)} > tools/githooks/pre-commit && chmod +x tools/githooks/pre-commit; echo finished`;
    await runAttack(s, "bypass", [["execute", { command }]]);
    expect(toolOutput()).toContain("finished");
    expect(await readFile(p("tools/githooks/pre-commit"), "utf8")).toBe(GOOD);
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
  });

  it("creating a missing core.hooksPath folder (mv .githooks .githooks.old && mkdir .githooks) is undone and said", async () => {
    git(s.home, s.project, "config", "core.hooksPath", ".githooks");
    const command = `mv .githooks .githooks.old; mkdir .githooks && ${sh(`touch ${pwned()}`)} > .githooks/pre-commit && chmod +x .githooks/pre-commit; echo finished`;
    await runAttack(s, "bypass", [["execute", { command }]]);
    expect(toolOutput()).toContain(`moved ${p(".githooks")} aside to ${p(".githooks.deep-acp-moved")}`);
    expect(existsSync(p(".githooks"))).toBe(false);
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
  });

  it("replacing a linked .git with a real folder with hooks: the link comes back", async () => {
    await rename(p(".git"), p("gitstore"));
    await symlink("gitstore", p(".git"));
    const command = [
      "rm .git && mkdir .git && cp -r gitstore/. .git/",
      `${sh(`touch ${pwned()}`)} > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
      "echo finished",
    ].join("; ");
    await runAttack(s, "bypass", [["execute", { command }]]);
    expect(toolOutput()).toContain("finished");
    expect(await readlink(p(".git"))).toBe("gitstore");
    expect(toolOutput()).toContain(`restored the link ${p(".git")} -> gitstore`);
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
    await rm(p(".git.deep-acp-moved"), { recursive: true, force: true });
  });

  it("an ordinary edit-test loop is left alone and told nothing", async () => {
    git(s.home, s.project, "config", "core.hooksPath", "tools/githooks");
    await mkdir(p("tools/githooks"), { recursive: true });
    const command = "echo 'echo build' > tools/build.sh; mkdir -p src && echo x > src/a.ts; cat ok.txt; echo finished";
    const calls: Call[] = [
      ["write_file", { file_path: p("src/b.ts"), content: "export {};\n" }],
      ["execute", { command }],
    ];
    await runAttack(s, "accept-edits", calls, {}, undefined, "allow_once");
    // The command asks, as every command does in accept-edits; nothing else does.
    expect(s.dialogs.map((d) => d.params.toolCall.rawInput.command)).toEqual([command]);
    expect(toolOutput()).toContain("finished");
    expect(toolOutput()).not.toContain("[deep-acp]");
    expect(await readFile(p("tools/build.sh"), "utf8")).toBe("echo build\n");
  });
});
