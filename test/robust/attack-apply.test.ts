// Issue 34.3, "what is shown is not what is written": /apply through the built binary on the real
// engine. Each attack is what a session (or a process it left running in the container) can do to
// make the host get something other than what the user approved: swap a file between the dialog and
// the write, show a host file outside the project through a link, carry a setuid bit, hide change 101,
// race a host edit past the conflict check, slip a file past a deny rule or a PreToolUse or
// PermissionRequest hook, or keep a remembered `make build` after the Makefile it runs was rewritten.
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { checkDockerAvailable, containersOfSession, createContainerTracker, TEST_IMAGE } from "../support/docker.js";
import { createFakeEditor, ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { poll } from "../support/poll.js";

const availability = await checkDockerAvailable();
if (!availability.ok) describe("attack: /apply", () => it.skip(`skipped: ${availability.reason}`, () => {}));

const env = process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {};
const texts = (updates: any[]) =>
  updates
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
const choose = (m: JsonRpcMessage, kind: string) => ({
  outcome: { outcome: "selected", optionId: m.params.options.find((o: { kind: string }) => o.kind === kind).optionId },
});
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

(availability.ok ? describe : describe.skip)("attack: /apply shows what it writes (built binary, real engine)", () => {
  const docker = availability.ok ? availability.docker : (undefined as never);
  const suite = useAgentSuite({ name: "attack-apply" });
  const tracker = createContainerTracker(docker);
  const outside: string[] = [];
  afterEach(async () => {
    await Promise.resolve()
      .then(() => suite.agent.stop())
      .catch(() => undefined);
    await tracker.removeAll();
    for (const dir of outside.splice(0)) await rm(dir, { recursive: true, force: true });
  });

  /**
   * A session whose one turn runs `command` in its container; `permission` answers /apply's dialogs.
   * Returns what /apply needs: the session, its container and the dialogs it showed.
   */
  async function session(command: string, permission: (m: JsonRpcMessage, containerId: string) => unknown) {
    suite.model.enqueue(toolTurn("execute", { command }), textTurn("Done."));
    let containerId = "";
    const dialogs: JsonRpcMessage[] = [];
    const editor = createFakeEditor({
      permission: (m) => {
        dialogs.push(m);
        return permission(m, containerId);
      },
    });
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", `docker://${TEST_IMAGE}`],
      onRequest: editor.handle,
      capabilities: ZED_CAPABILITIES,
    });
    await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
    const prompt = (text: string) =>
      suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    expect((await prompt("go")).result.stopReason).toBe("end_turn");
    await poll(async () => (await containersOfSession(docker, sessionId)).length > 0);
    for (const c of await containersOfSession(docker, sessionId)) tracker.add(c.Id);
    containerId = (await containersOfSession(docker, sessionId))[0]!.Id;
    dialogs.length = 0;
    return { sessionId, dialogs, prompt, said: () => texts(suite.agent.updates(sessionId)) };
  }

  async function execIn(containerId: string, command: string): Promise<void> {
    const exec = await docker.getContainer(containerId).exec({
      Cmd: ["sh", "-c", command],
      AttachStdout: true,
      AttachStderr: true,
    });
    const stream = await exec.start({});
    await new Promise((resolve) => {
      stream.on("end", resolve);
      stream.resume();
    });
  }

  it("a process left running in the container swaps package.json between the dialog and the write: the host gets what was shown", async () => {
    // trap '' TERM: the command's end sends TERM to its process group, which can reach the child before its setsid.
    const s = await session(
      `echo '{"name":"shown"}' > package.json; ` +
        `(trap '' TERM; setsid sh -c 'while [ ! -f /tmp/go ]; do sleep 0.02; done; echo "{\\"name\\":\\"swapped\\"}" > package.json' </dev/null >/dev/null 2>&1 &)`,
      async (m, containerId) => {
        // The dialog is open: the background process is told to swap now, and has time to.
        await execIn(containerId, "touch /tmp/go");
        await sleep(500);
        return choose(m, "allow_once");
      },
    );
    expect((await s.prompt("/apply")).result.stopReason).toBe("end_turn");
    expect(s.dialogs).toHaveLength(1);
    expect(JSON.stringify(s.dialogs[0]!.params.toolCall.content)).toContain('{\\"name\\":\\"shown\\"}');
    expect(await readFile(join(suite.project, "package.json"), "utf8")).toBe('{"name":"shown"}\n');
    // Thawed after the write: the process goes on, and its swap is a new change, not a silent one.
    await poll(async () => {
      await s.prompt("/changes");
      return /modified `package\.json`/.test(s.said());
    });
  });

  it("a host link in the project to a file outside: the dialog never shows that file, and the write replaces the link", async () => {
    const away = await mkdtemp(join(tmpdir(), "deep-acp-outside-"));
    outside.push(away);
    await writeFile(join(away, "secret.txt"), "TOP-SECRET-CONTENT\n");
    await symlink(join(away, "secret.txt"), join(suite.project, "notes.txt"));
    const s = await session("rm notes.txt && echo mine > notes.txt", (m) => choose(m, "allow_once"));
    expect((await s.prompt("/apply")).result.stopReason).toBe("end_turn");
    expect(s.dialogs).toHaveLength(1);
    const shown = JSON.stringify(s.dialogs[0]!.params.toolCall.content);
    expect(shown).not.toContain("TOP-SECRET");
    expect(shown).toMatch(/replaces the host's link/);
    expect(await readFile(join(away, "secret.txt"), "utf8")).toBe("TOP-SECRET-CONTENT\n");
    expect((await lstat(join(suite.project, "notes.txt"))).isFile()).toBe(true);
    expect(await readFile(join(suite.project, "notes.txt"), "utf8")).toBe("mine\n");
  });

  it("a setuid file: the host gets it without the bit, and the dialog says so", async () => {
    const s = await session("printf '#!/bin/sh\\necho hi\\n' > tool.sh && chmod 6755 tool.sh", (m) =>
      choose(m, "allow_once"),
    );
    expect((await s.prompt("/apply")).result.stopReason).toBe("end_turn");
    expect(JSON.stringify(s.dialogs[0]!.params.toolCall.content)).toMatch(
      /setuid and setgid bits removed on the host \(6755 -> 0755\)/,
    );
    expect((await stat(join(suite.project, "tool.sh"))).mode & 0o7777).toBe(0o755);
  });

  it("150 changes: every one is named and the diffs past the bound are summed up, never cut silently", async () => {
    const s = await session("for i in $(seq 1 150); do echo $i > f$i.txt; done", (m) => choose(m, "allow_once"));
    expect((await s.prompt("/apply")).result.stopReason).toBe("end_turn");
    const content: any[] = s.dialogs[0]!.params.toolCall.content;
    const shown = JSON.stringify(content);
    for (let i = 1; i <= 150; i++) expect(shown).toContain(`f${i}.txt`);
    expect(content.filter((c) => c.type === "diff")).toHaveLength(100);
    expect(shown).toMatch(/50 more changes not shown as diffs/);
    expect(await readFile(join(suite.project, "f150.txt"), "utf8")).toBe("150\n");
  });

  it("a host edit made while the dialog is open is a conflict at the write, not overwritten", async () => {
    await writeFile(join(suite.project, "a.txt"), "one\n");
    const s = await session("echo two > a.txt && echo new > b.txt", async (m) => {
      await writeFile(join(suite.project, "a.txt"), "host edit during the dialog\n");
      return choose(m, "allow_once");
    });
    expect((await s.prompt("/apply")).result.stopReason).toBe("end_turn");
    expect(await readFile(join(suite.project, "a.txt"), "utf8")).toBe("host edit during the dialog\n");
    expect(await readFile(join(suite.project, "b.txt"), "utf8")).toBe("new\n");
    expect(s.said()).toMatch(/Conflicts, not overwritten\*\* \(1\)\n- a\.txt: changed on the host since the copy/);
  });

  it("a file deny rule, a PreToolUse hook and a PermissionRequest hook on Write hold for /apply as for the file tools", async () => {
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    await writeFile(
      join(suite.home, ".deepagents", "config.toml"),
      `[[permissions]]\noperations = ["write"]\npaths = ["${suite.project}/secret/**"]\nmode = "deny"\n`,
    );
    await writeFile(
      join(suite.home, ".deepagents", "hooks.json"),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: "Write",
              hooks: [
                { type: "command", command: "grep -q blocked.txt && { echo 'no blocked files' >&2; exit 2; }; exit 0" },
              ],
            },
          ],
          PermissionRequest: [
            {
              matcher: "Write",
              hooks: [{ type: "command", command: "grep -q perm.txt && { echo 'not that one' >&2; exit 2; }; exit 0" }],
            },
          ],
        },
      }),
    );
    const s = await session(
      "mkdir -p secret && echo s > secret/key.txt && echo b > blocked.txt && echo p > perm.txt && echo ok > ok.txt",
      (m) => choose(m, "allow_once"),
    );
    expect((await s.prompt("/apply")).result.stopReason).toBe("end_turn");
    expect(s.dialogs.map((d) => d.params.toolCall.title)).toEqual([`Apply 1 change to ${suite.project}`]);
    expect(await readFile(join(suite.project, "ok.txt"), "utf8")).toBe("ok\n");
    await expect(readFile(join(suite.project, "secret", "key.txt"))).rejects.toThrow();
    await expect(readFile(join(suite.project, "blocked.txt"))).rejects.toThrow();
    await expect(readFile(join(suite.project, "perm.txt"))).rejects.toThrow();
    expect(s.said()).toMatch(/- perm\.txt: denied by a PermissionRequest hook: not that one/);
    expect(s.said()).toMatch(/- blocked\.txt: blocked by a PreToolUse hook: no blocked files/);
    expect(s.said()).toMatch(/- secret\/key\.txt: .*permission denied for write/);
  });

  it("a remembered `make build` asks again after /apply writes the Makefile a command inside changed", async () => {
    await writeFile(join(suite.project, "Makefile"), "build:\n\t@echo built\n");
    const run = (command: string) => toolTurn("execute", { command });
    suite.model.enqueue(run("make build"), run("make build"), textTurn("Built."));
    suite.model.enqueue(run("printf 'build:\\n\\t@echo evil\\n' > Makefile"), textTurn("Changed."));
    suite.model.enqueue(run("make build"), textTurn("Built again."));
    const asked: string[] = [];
    const editor = createFakeEditor({
      permission: (m) => {
        const command: string = m.params.toolCall.rawInput?.command ?? m.params.toolCall.title;
        asked.push(command);
        return choose(m, command === "make build" && asked.length === 1 ? "allow_always" : "allow_once");
      },
    });
    const sessionId = await suite.startSession({
      env,
      args: ["--workspace", `docker://${TEST_IMAGE}`],
      onRequest: editor.handle,
      capabilities: ZED_CAPABILITIES,
    });
    const prompt = (text: string) =>
      suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
    expect((await prompt("build")).result.stopReason).toBe("end_turn");
    await poll(async () => (await containersOfSession(docker, sessionId)).length > 0);
    for (const c of await containersOfSession(docker, sessionId)) tracker.add(c.Id);
    expect((await prompt("change the Makefile")).result.stopReason).toBe("end_turn");
    expect((await prompt("/apply")).result.stopReason).toBe("end_turn");
    expect(await readFile(join(suite.project, "Makefile"), "utf8")).toBe("build:\n\t@echo evil\n");
    expect((await prompt("build again")).result.stopReason).toBe("end_turn");
    expect(asked.filter((a) => a === "make build")).toHaveLength(2);
  });

  it("a dismissed dialog writes nothing, and no dialog offers Always", async () => {
    const s = await session("echo two > c.txt", () => ({ outcome: { outcome: "cancelled" } }));
    await s.prompt("/apply");
    expect(s.dialogs[0]!.params.options.map((o: { kind: string }) => o.kind)).not.toContain("allow_always");
    await expect(readFile(join(suite.project, "c.txt"))).rejects.toThrow();
  });
});
