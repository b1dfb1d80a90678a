// `deep-acp setup` with the built binary, started through a symlink the way a global install's bin
// link starts it: the editor entry must name this Node and the real script, and that line must run.
import { mkdtemp, readFile, realpath, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { BINARY } from "../support/agent-process.js";
import { runCommand } from "../support/processes.js";

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

it("writes the absolute launch line of the running installation, and that line starts deep-acp", async () => {
  const home = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-setup-e2e-")));
  temps.push(home);
  const link = join(home, "deep-acp");
  await symlink(BINARY, link);
  const env = { PATH: process.env.PATH, HOME: home };
  const result = await runCommand(process.execPath, [link, "setup", "jetbrains"], { cwd: home, env });
  expect(result.stderr).toBe("");
  expect(result.code).toBe(0);
  const entry = JSON.parse(await readFile(join(home, ".jetbrains", "acp.json"), "utf8")).agent_servers["deep-acp"];
  expect(entry).toEqual({ command: process.execPath, args: [await realpath(BINARY)], env: {} });
  const version = await runCommand(entry.command, [...entry.args, "--version"], { cwd: home, env: { HOME: home } });
  expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
});
