// Real-path resolution and the gate on a real hostile tree, and the local backend refusing a link
// swapped between the gate's decision and the open (an injected fs does the swap deterministically).
import { existsSync } from "node:fs";
import { link, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { backendForCall } from "../../../src/backends/paths/approved-targets.js";
import { createCompositeBackend } from "../../../src/backends/routes/composite-backend.js";
import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";
import { createLocalShellBackend } from "../../../src/backends/local/local-shell.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import { createGuardedBackend } from "../../../src/gate/rules/guarded-backend.js";
import { compileFileRules } from "../../../src/gate/rules/file-rules.js";
import { nodeFsOps, type FsOps } from "../../../src/backends/paths/path-guard.js";
import { resolveRealTarget } from "../../../src/backends/paths/real-path.js";
import { createSessionApprovalMemory } from "../../../src/gate/memory/approval-memory.js";
import { gateToolCall } from "../../../src/gate/call/gate.js";
import { decideMention } from "../../../src/gate/seams/mention.js";
import { resolvePrompt } from "../../../src/turn/index.js";

let base: string;
let project: string;
let outside: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-gate-")));
  project = join(base, "project");
  outside = join(base, "outside");
  await mkdir(project);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "TOP SECRET\n");
  await writeFile(join(project, "ok.txt"), "fine\n");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("real paths", () => {
  it("follows file links, folder links, chains, relative links and dangling links", async () => {
    await symlink(join(outside, "secret.txt"), join(project, "abs.txt"));
    await symlink("../outside/secret.txt", join(project, "rel.txt"));
    await symlink(join(project, "rel.txt"), join(project, "chain.txt"));
    await symlink(outside, join(project, "dir"));
    await symlink(join(outside, "created.txt"), join(project, "dangling.txt"));
    for (const name of ["abs.txt", "rel.txt", "chain.txt", "dir/secret.txt"]) {
      expect((await resolveRealTarget(join(project, name))).real).toBe(join(outside, "secret.txt"));
    }
    expect((await resolveRealTarget(join(project, "dir/new/deeper.txt"))).real).toBe(join(outside, "new/deeper.txt"));
    expect(await resolveRealTarget(join(project, "dangling.txt"))).toMatchObject({
      real: join(outside, "created.txt"),
      exists: false,
    });
  });

  it("reports hard links and unresolvable loops", async () => {
    await link(join(outside, "secret.txt"), join(project, "hard.txt"));
    expect((await resolveRealTarget(join(project, "hard.txt"))).hardLinks).toBe(2);
    await symlink(join(project, "loop-b"), join(project, "loop-a"));
    await symlink(join(project, "loop-a"), join(project, "loop-b"));
    expect((await resolveRealTarget(join(project, "loop-a"))).unresolved).toBeDefined();
  });

  it("asks for a read through a link in accept-edits, naming the real target", async () => {
    await symlink(join(outside, "secret.txt"), join(project, "link.txt"));
    const gated = await gateToolCall({
      tool: { name: "read_file", effect: "read" },
      input: {},
      paths: [join(project, "link.txt")],
      cwd: project,
      roots: [project],
      virtualPrefixes: [],
      mode: "accept-edits",
      memory: createSessionApprovalMemory(),
    });
    expect(gated.decision).toMatchObject({
      action: "ask",
      alwaysKey: `read:outside:${join(outside, "secret.txt")}`,
    });
    expect(gated.decision.reason).toContain(join(outside, "secret.txt"));
    expect(gated.approved.get(join(project, "link.txt"))).toBe(join(outside, "secret.txt"));
  });

  it("drops remembered command approvals when the agent changes the file deciding what they run", async () => {
    const memory = createSessionApprovalMemory();
    memory.remember("execute:npm test", "allow", "npm test");
    memory.remember("execute:git status", "allow", "git status");
    const { forgetCommandsChangedBy } = await import("../../../src/gate/call/gate.js");
    await forgetCommandsChangedBy([await resolveRealTarget(join(project, "package.json"))], [project], memory);
    expect(memory.lookup("execute:npm test")).toBeUndefined();
    expect(memory.lookup("execute:git status")).toBe("allow");
  });
});

describe("the local backend opens what was approved", () => {
  const swapAfterFirstRealpath = (victim: string, to: string): FsOps => {
    let armed = true;
    return {
      ...nodeFsOps,
      realpath: async (p) => {
        const real = await nodeFsOps.realpath(p);
        if (armed && p === victim) {
          armed = false;
          await rm(victim, { recursive: true });
          await symlink(to, victim);
        }
        return real;
      },
    };
  };

  it("refuses a file swapped for a link between the check and the open", async () => {
    const victim = join(project, "victim.txt");
    await writeFile(victim, "harmless\n");
    const backend = createFilesystemBackend({
      rootDir: project,
      fs: swapAfterFirstRealpath(victim, join(outside, "secret.txt")),
    });
    const read = await backendForCall(backend, new Map([[victim, victim]])).read(victim);
    expect(read.content).toBeUndefined();
    expect(read.error).toMatch(/replaced by a link|changed after it was approved/);
  });

  it("refuses a write when the target now leads elsewhere than the gate decided", async () => {
    const victim = join(project, "victim.txt");
    await writeFile(victim, "harmless\n");
    // The gate decided on project/victim.txt; meanwhile it became a link out.
    await rm(victim);
    await symlink(join(outside, "secret.txt"), victim);
    const backend = createFilesystemBackend({ rootDir: project });
    const write = await backendForCall(backend, new Map([[victim, victim]])).write(victim, "PWNED");
    expect(write.error).toMatch(/changed after it was approved/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("a session's whole backend (rules, routes, shell, files) bound to a call opens only the approved real path", async () => {
    const victim = join(project, "victim.txt");
    await writeFile(victim, "harmless\n");
    await writeFile(join(project, "denied.txt"), "no\n");
    const rules = compileFileRules([{ operations: ["read"], paths: [join(project, "denied.txt")], mode: "deny" }], "t");
    const session = createGuardedBackend(
      createCompositeBackend(createLocalShellBackend({ rootDir: project }), { "/memories/": createStateBackend() }),
      rules.items,
    );
    const call = backendForCall(session, new Map([[victim, victim]]));
    // The gate decided on project/victim.txt; then it became a link out.
    await rm(victim);
    await symlink(join(outside, "secret.txt"), victim);
    const read = await call.read(victim);
    expect(read.content).toBeUndefined();
    expect(read.error).toMatch(/changed after it was approved/);
    // Bound to the call, the rules still apply, and the unbound backend is unchanged.
    expect((await call.read(join(project, "denied.txt"))).error).toMatch(/denied/i);
    expect((await session.read(victim)).error).toBeUndefined();
  });

  it("refuses a folder on the way swapped for a link", async () => {
    await mkdir(join(project, "dir"));
    await writeFile(join(project, "dir", "secret.txt"), "harmless\n");
    const dir = join(project, "dir");
    const target = join(dir, "secret.txt");
    let armed = true;
    const fs: FsOps = {
      ...nodeFsOps,
      open: async (p, flags, mode) => {
        if (armed) {
          armed = false;
          await rm(dir, { recursive: true });
          await symlink(outside, dir);
        }
        return nodeFsOps.open(p, flags, mode);
      },
    };
    const backend = createFilesystemBackend({ rootDir: project, fs });
    const write = await backendForCall(backend, new Map([[target, target]])).write(target, "PWNED");
    expect(write.error).toBeDefined();
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("deletes a link itself, never what it points to", async () => {
    await symlink(join(outside, "secret.txt"), join(project, "link.txt"));
    const backend = createFilesystemBackend({ rootDir: project });
    expect((await backend.delete(join(project, "link.txt"))).error).toBeUndefined();
    expect(existsSync(join(outside, "secret.txt"))).toBe(true);
  });
});

describe("an @mention swapped for a link after its check", () => {
  it("is read from the file that was checked, or not at all", async () => {
    const backend = createFilesystemBackend({ rootDir: project });
    const path = join(project, "ok.txt");
    const blocks = [{ type: "file" as const, path, name: "ok.txt", uri: `file://${path}` }];
    // A command running in the background swaps the checked file for a link to a secret before the read.
    const checkThenSwap = async (mentioned: string) => {
      const decision = await decideMention(mentioned, { roots: [project], virtualPrefixes: [] });
      await rm(mentioned);
      await symlink(join(outside, "secret.txt"), mentioned);
      return decision;
    };
    const message = await resolvePrompt(blocks, backend, false, checkThenSwap);
    const text = JSON.stringify(message);
    expect(text).not.toContain("TOP SECRET");
    expect(text).toContain("changed after it was approved");
  });
});
