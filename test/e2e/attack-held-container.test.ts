// Attack suite, round 4, container workspaces on the real engine: in bind mode the container writes
// the host's disk, so a command (or the dev container's postCreateCommand, before any dialog) that
// renames the parent of git's hooks folder, or turns a linked `.git` into a real folder, would plant
// what the host's next `git commit` runs. And a container session's file tools must know the host's
// git-resolved surfaces (core.hooksPath), not only name patterns. Built binary, fake model.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, readlink, rename, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { git } from "../support/attack-harness.js";
import { checkDockerAvailable, containersOfSession, createContainerTracker, TEST_IMAGE } from "../support/docker.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const availability = await checkDockerAvailable();
if (!availability.ok)
  describe("held surfaces in containers", () => it.skip(`skipped: ${availability.reason}`, () => {}));

const env = process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {};
const GOOD = "#!/bin/sh\nexit 0\n";

(availability.ok ? describe : describe.skip)("attack: held surfaces in container workspaces (real engine)", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "held-container" });
  const tracker = createContainerTracker(docker);
  const dialogs: JsonRpcMessage[] = [];
  afterEach(async () => {
    await Promise.resolve()
      .then(() => suite.agent.stop())
      .catch(() => undefined);
    await tracker.removeAll();
    dialogs.length = 0;
  });
  const p = (name: string) => join(suite.project, name);
  const pwned = () => join(suite.home, "pwned");
  const plant = (file: string) => `printf '%s\\n' '#!/bin/sh' 'touch ${pwned()}' > ${file} && chmod +x ${file}`;

  async function repository(): Promise<void> {
    git(suite.home, suite.project, "init", "-q");
    git(suite.home, suite.project, "config", "user.email", "t@example.com");
    git(suite.home, suite.project, "config", "user.name", "t");
    await writeFile(p("ok.txt"), "ordinary\n");
  }
  async function hooksPathRepository(): Promise<void> {
    await repository();
    git(suite.home, suite.project, "config", "core.hooksPath", "tools/githooks");
    await mkdir(p("tools/githooks"), { recursive: true });
    await writeFile(p("tools/githooks/pre-commit"), GOOD);
    await chmod(p("tools/githooks/pre-commit"), 0o755);
  }
  /** The user's next commit on the host, with git's hooks as the repository now has them. */
  function hostCommit(): void {
    execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "host"], {
      cwd: suite.project,
      env: { PATH: process.env.PATH, HOME: suite.home, GIT_CONFIG_NOSYSTEM: "1" },
      stdio: "ignore",
    });
  }
  async function session(url: string, mode: string, extraArgs: string[] = []): Promise<string> {
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", url, ...extraArgs],
      onRequest: (m) => {
        if (m.method !== "session/request_permission") throw new Error(`unexpected ${m.method}`);
        dialogs.push(m);
        const option = m.params.options.find((o: { kind: string }) => o.kind === "reject_once");
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      },
    });
    for (const c of await containersOfSession(docker, sessionId)) tracker.add(c.Id);
    await suite.agent.request("session/set_mode", { sessionId, modeId: mode });
    return sessionId;
  }
  async function prompt(sessionId: string): Promise<string> {
    const response = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
    expect(response.result.stopReason).toBe("end_turn");
    return JSON.stringify(suite.model.requests.at(-1)!.body);
  }

  it("bind mode: renaming the hooks folder's parent and planting new hooks leaves the host's hooks as they were", async () => {
    await hooksPathRepository();
    const command = `mv tools tools.old; echo mv=$?; mkdir -p tools/githooks && ${plant("tools/githooks/pre-commit")}; echo finished`;
    suite.model.enqueue(toolTurn("execute", { command }), textTurn("Done."));
    const sent = await prompt(await session(`docker://${TEST_IMAGE}?mount=bind`, "bypass"));
    expect(sent).toContain("finished");
    expect(await readFile(p("tools/githooks/pre-commit"), "utf8")).toBe(GOOD);
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
  });

  it("bind mode: a linked .git replaced with a real folder with hooks is linked again, and said", async () => {
    await repository();
    await rename(p(".git"), p("gitstore"));
    await symlink("gitstore", p(".git"));
    const command = `rm .git && mkdir .git && cp -r gitstore/. .git/ && ${plant(".git/hooks/pre-commit")}; echo finished`;
    suite.model.enqueue(toolTurn("execute", { command }), textTurn("Done."));
    const sent = await prompt(await session(`docker://${TEST_IMAGE}?mount=bind`, "bypass"));
    expect(sent).toContain("finished");
    expect(sent).toContain(`restored the link ${p(".git")} -> gitstore`);
    expect(await readlink(p(".git"))).toBe("gitstore");
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
  });

  it("bind mode: a devcontainer's postCreateCommand (before any dialog) renaming the hooks' parent or replacing a linked .git is undone before the session starts", async () => {
    await hooksPathRepository();
    await rename(p(".git"), p("gitstore"));
    await symlink("gitstore", p(".git"));
    await mkdir(p(".devcontainer"));
    const postCreateCommand = [
      `mv tools tools.old; mkdir -p tools/githooks && ${plant("tools/githooks/pre-commit")}`,
      `rm .git && mkdir .git && cp -r gitstore/. .git/ && git config -f .git/config core.hooksPath .git/hooks && ${plant(".git/hooks/pre-commit")}`,
    ].join("; ");
    await writeFile(p(".devcontainer/devcontainer.json"), JSON.stringify({ image: TEST_IMAGE, postCreateCommand }));
    suite.model.enqueue(textTurn("Done."));
    // The dev container's plan is trusted up front: this attack is what runs before any other dialog.
    const sessionId = await session("devcontainer?mount=bind", "default", ["--trust-devcontainer"]);
    await prompt(sessionId);
    expect(await readFile(p("tools/githooks/pre-commit"), "utf8")).toBe(GOOD);
    expect(await readlink(p(".git"))).toBe("gitstore");
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
    // The user is told, at the first turn: the rename was refused, the link put back.
    const shown = JSON.stringify(suite.agent.updates(sessionId));
    expect(shown).toContain("cannot move 'tools' to 'tools.old': Device or resource busy");
    expect(shown).toContain(`restored the link ${p(".git")} -> gitstore`);
  });

  it("bind mode: a hooks folder the host names after the container was made (no read-only bind) keeps what it had", async () => {
    await repository();
    await mkdir(p("scripts"));
    await writeFile(p("scripts/build.sh"), "echo build\n");
    suite.model.enqueue(textTurn("Ready."));
    const sessionId = await session(`docker://${TEST_IMAGE}?mount=bind`, "bypass");
    await prompt(sessionId);
    // The user points git at scripts/ on the host while the session runs.
    git(suite.home, suite.project, "config", "core.hooksPath", "scripts");
    suite.model.enqueue(
      toolTurn("execute", { command: `${plant("scripts/pre-commit")}; echo finished` }),
      textTurn("Done."),
    );
    const sent = await prompt(sessionId);
    expect(sent).toContain("finished");
    expect(sent).toContain(`moved ${p("scripts/pre-commit")} aside to ${p("scripts/pre-commit.deep-acp-moved")}`);
    expect(existsSync(p("scripts/pre-commit"))).toBe(false);
    expect(await readFile(p("scripts/build.sh"), "utf8")).toBe("echo build\n");
    hostCommit();
    expect(existsSync(pwned())).toBe(false);
  });

  it("bind mode: an ordinary edit-test loop beside the held paths is told nothing and asks nothing", async () => {
    await hooksPathRepository();
    suite.model.enqueue(
      toolTurn("write_file", { file_path: p("tools/build.sh"), content: "echo build\n" }),
      toolTurn("execute", {
        command: "sh tools/build.sh; mkdir -p tools/lib && echo x > tools/lib/a.txt; git status --short | wc -l",
      }),
      textTurn("Done."),
    );
    const sent = await prompt(await session(`docker://${TEST_IMAGE}?mount=bind`, "bypass"));
    expect(sent).toContain("build");
    expect(sent).not.toContain("[deep-acp]");
    expect(dialogs).toEqual([]);
    expect(await readFile(p("tools/lib/a.txt"), "utf8")).toBe("x\n");
  });

  it("copy mode: a file tool writing into the folder core.hooksPath names asks, with the host's reason", async () => {
    await repository();
    git(suite.home, suite.project, "config", "core.hooksPath", ".githooks");
    await mkdir(p(".githooks"));
    suite.model.enqueue(
      toolTurn("write_file", { file_path: p(".githooks/pre-commit"), content: "#!/bin/sh\ntouch /tmp/x\n" }),
      toolTurn("write_file", { file_path: p("src.txt"), content: "ordinary\n" }),
      textTurn("Done."),
    );
    await prompt(await session(`docker://${TEST_IMAGE}`, "accept-edits"));
    expect(dialogs.map((d) => d.params.toolCall.rawInput.file_path)).toEqual([p(".githooks/pre-commit")]);
    expect(JSON.stringify(dialogs[0]!.params)).toMatch(/hooks folder \(core\.hooksPath\)/);
    expect(dialogs[0]!.params.options.some((o: { kind: string }) => o.kind === "allow_always")).toBe(false);
  });
});
