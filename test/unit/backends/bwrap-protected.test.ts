// Under the bwrap sandbox, what decides what runs outside it stays read-only (<root>/.git,
// <root>/.deepagents, ~/.deepagents), and the agent's stored credentials and model key are out of
// reach: not in the command's environment, not in /proc (own pid namespace), not on disk.
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildBwrapArgs } from "../../../src/backends/sandbox/bwrap-args.js";
import { checkBwrapAvailable, createBwrapSandboxBackend } from "../../../src/backends/sandbox/bwrap-sandbox.js";
import { createProtectedPaths } from "../../../src/gate/surfaces/protected-paths.js";

const availability = await checkBwrapAvailable();
const MODEL_MARKER = "sk-ant-MARKER-sandbox-3b7d";
const STORED_MARKER = "sk-stored-MARKER-credentials-a41c";

let home: string;
let project: string;

beforeEach(async () => {
  home = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-bwrap-home-")));
  project = join(home, "code", "repo");
  await mkdir(join(project, ".git", "hooks"), { recursive: true });
  await mkdir(join(project, ".deepagents"), { recursive: true });
  await writeFile(join(project, ".git", "config"), "[core]\n\tbare = false\n");
  await writeFile(join(project, ".deepagents", "hooks.json"), "{}");
  await mkdir(join(home, ".deepagents", ".state"), { recursive: true });
  await writeFile(
    join(home, ".deepagents", ".state", "credentials.json"),
    JSON.stringify({ anthropic: { apiKey: STORED_MARKER } }),
  );
  await writeFile(join(home, ".deepagents", "hooks.json"), "{}");
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("bwrap mounts", () => {
  it("binds each root's .git and .deepagents read-only after the root itself", () => {
    const args = buildBwrapArgs(
      { roots: [project], readOnlyPaths: [], writablePaths: [], network: false, homeDir: home, systemPaths: [] },
      project,
    );
    const at = (flag: string, path: string) => args.findIndex((arg, i) => arg === flag && args[i + 2] === path);
    expect(at("--bind", project)).toBeGreaterThan(-1);
    expect(at("--ro-bind", join(project, ".git"))).toBeGreaterThan(at("--bind", project));
    expect(at("--ro-bind", join(project, ".deepagents"))).toBeGreaterThan(at("--bind", project));
    // ~/.deepagents is not inside the root: the tmpfs over $HOME hides it already.
    expect(args).not.toContain(join(home, ".deepagents", ".state"));
  });
});

describe("the gate's protected paths as sandbox entries", () => {
  it("names the literal part of each pattern, and nothing for a pattern that starts with a glob", () => {
    const entries = createProtectedPaths(undefined, ["**/secrets/*.key", "*.pem", "deploy/run.sh"]).entries;
    expect(entries).toEqual(
      expect.arrayContaining([".git", ".envrc", ".vscode", ".mcp.json", "secrets", "deploy/run.sh"]),
    );
    expect(entries.some((entry) => entry.includes("*"))).toBe(false);
  });
});

describe.skipIf(!availability.ok)("bwrap sandbox protections", () => {
  const sandbox = (roots: string[], protectedEntries?: readonly string[]) =>
    createBwrapSandboxBackend({
      roots,
      homeDir: home,
      ...(protectedEntries ? { protectedEntries } : {}),
      env: {
        baseEnv: { PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: MODEL_MARKER, OPENAI_API_KEY: MODEL_MARKER },
      },
    });

  it("a sandboxed command cannot write .git/config, plant a git hook or edit .deepagents", async () => {
    const result = await sandbox([project]).execute(
      `cd ${project}; printf '[core]\\n\\tfsmonitor = evil\\n' > .git/config; echo x > .git/hooks/post-checkout; echo '{"hooks":{}}' > .deepagents/hooks.json; echo ok > written.txt; true`,
    );
    expect(result.output).toMatch(/Read-only file system/);
    expect(await readFile(join(project, ".git", "config"), "utf8")).toBe("[core]\n\tbare = false\n");
    await expect(readFile(join(project, ".git", "hooks", "post-checkout"), "utf8")).rejects.toThrow(/ENOENT/);
    expect(await readFile(join(project, ".deepagents", "hooks.json"), "utf8")).toBe("{}");
    expect(await readFile(join(project, "written.txt"), "utf8")).toBe("ok\n");
  });

  it("neither the environment, /proc nor the stored credentials give the model key, with the project in $HOME or $HOME as the root", async () => {
    const steal = `cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'; env; cat ~/.deepagents/.state/credentials.json ${home}/.deepagents/.state/credentials.json; cat /proc/1/environ; ls -la ${home}/.deepagents/.state; true`;
    for (const roots of [[project], [home]]) {
      const result = await sandbox(roots).execute(steal);
      expect(result.output).not.toContain(MODEL_MARKER);
      expect(result.output).not.toContain(STORED_MARKER);
    }
    // With $HOME as the root, deep-acp's own folder (user hooks, MCP config) is read-only too.
    const write = await sandbox([home]).execute(
      `echo '{}' > ${home}/.deepagents/hooks.json; echo planted > ${home}/.deepagents/.state/credentials.json; true`,
    );
    expect(write.output).toMatch(/Read-only file system/);
    expect(await readFile(join(home, ".deepagents", ".state", "credentials.json"), "utf8")).toContain(STORED_MARKER);
  });

  it("every path the gate protects that exists in a root is read-only, at the root and in a nested repository", async () => {
    const files: Record<string, string> = {
      ".envrc": "export SAFE=1\n",
      ".vscode/tasks.json": "{}\n",
      ".mcp.json": '{"mcpServers":{}}\n',
      ".npmrc": "registry=https://registry.npmjs.org/\n",
      ".claude/settings.json": "{}\n",
      "deploy/run.sh": "echo deploy\n",
      "sub/.git/config": "[core]\n",
      "sub/.envrc": "export SUB=1\n",
    };
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(project, path, ".."), { recursive: true });
      await writeFile(join(project, path), text);
    }
    // The gate's built-in list plus a configured `[protected] extra_paths` entry.
    const entries = createProtectedPaths(undefined, ["deploy/run.sh"]).entries;
    const overwrite = Object.keys(files)
      .filter((path) => !path.startsWith("sub/"))
      .map((path) => `echo evil > ${path}`)
      .join("; ");
    const atRoot = await sandbox([project], entries).execute(
      `cd ${project}; ${overwrite}; rm -rf .vscode .claude; mv .envrc moved; echo ok > notes.txt; true`,
    );
    expect(atRoot.output).toMatch(/Read-only file system|Device or resource busy/);
    // A command started inside the nested repository cannot change its .git or .envrc either.
    await sandbox([project], entries).execute(
      `echo evil > .git/config; echo evil > .envrc; echo ok > inner.txt; true`,
      { cwd: join(project, "sub") },
    );
    for (const [path, text] of Object.entries(files)) expect(await readFile(join(project, path), "utf8")).toBe(text);
    expect(await readFile(join(project, "notes.txt"), "utf8")).toBe("ok\n");
    expect(await readFile(join(project, "sub", "inner.txt"), "utf8")).toBe("ok\n");
  });

  it("mounts the host execution surfaces it is given read-only, and moves a missing one the command created aside", async () => {
    await mkdir(join(project, "store", "hooks"), { recursive: true });
    await writeFile(join(project, "store", "config"), "[core]\n");
    const surfaces = [
      { path: join(project, "store"), exists: true, reason: "git's folder" },
      { path: join(project, ".husky"), exists: false, reason: "husky's git hooks" },
    ];
    const backend = createBwrapSandboxBackend({
      roots: [project],
      homeDir: home,
      hostSurfaces: { resolve: async () => surfaces, latest: () => surfaces },
    });
    const result = await backend.execute(
      `cd ${project}; echo evil >> store/config; echo x > store/hooks/pre-commit; mkdir .husky && echo x > .husky/pre-commit; true`,
    );
    expect(result.output).toMatch(/Read-only file system/);
    expect(await readFile(join(project, "store", "config"), "utf8")).toBe("[core]\n");
    expect(result.output).toContain(
      `[deep-acp] moved ${join(project, ".husky")} aside to ${join(project, ".husky.deep-acp-moved")} (husky's git hooks)`,
    );
    expect(existsSync(join(project, ".husky"))).toBe(false);
  });

  it("binds the folders on the way to a surface over themselves: a command cannot rename them, background processes included", async () => {
    await mkdir(join(project, "tools", "githooks"), { recursive: true });
    await writeFile(join(project, "tools", "githooks", "pre-commit"), "good\n");
    const surfaces = [{ path: join(project, "tools", "githooks"), exists: true, reason: "core.hooksPath" }];
    const backend = createBwrapSandboxBackend({
      roots: [project],
      homeDir: home,
      hostSurfaces: { resolve: async () => surfaces, latest: () => surfaces },
    });
    const result = await backend.execute(`cd ${project}; mv tools tools.old; echo x > tools/notes.txt; echo done`);
    expect(result.output).toMatch(/Device or resource busy/);
    expect(await readFile(join(project, "tools", "notes.txt"), "utf8")).toBe("x\n");
    expect(await readFile(join(project, "tools", "githooks", "pre-commit"), "utf8")).toBe("good\n");
    const spec = backend.backgroundSpec!("sleep 1", project);
    const args = typeof spec === "string" ? [] : spec.args;
    const tools = join(project, "tools");
    expect(args.some((arg, i) => arg === "--bind" && args[i + 1] === tools && args[i + 2] === tools)).toBe(true);
  });
});
