// Which paths decide what runs on the host, as git itself resolves them, and the protected entries
// by their real paths; git is asked without running project code.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, cp, mkdir, mkdtemp, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { findTrustedExecutable, probeGit } from "../../../src/gate/surfaces/git-probe.js";
import { createHostSurfaceCache } from "../../../src/gate/surfaces/host-surface-cache.js";
import { resolveHostExecutionSurfaces } from "../../../src/gate/surfaces/host-surfaces.js";

let base: string;
let home: string;
let project: string;
const env = () => ({ PATH: process.env.PATH, HOME: home, GIT_CONFIG_NOSYSTEM: "1" });
const git = (...args: string[]) => execFileSync("git", args, { cwd: project, env: env(), stdio: "ignore" });
const p = (name: string) => join(project, name);
const options = () => ({ home, git: { env: env() } });

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-surfaces-")));
  home = join(base, "home");
  project = join(base, "project");
  await mkdir(home);
  await mkdir(project);
  git("init", "-q");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("resolveHostExecutionSurfaces", () => {
  it("follows a gitdir: file, core.hooksPath, includes (also missing ones) and a linked .vscode", async () => {
    await rename(p(".git"), p("store"));
    await writeFile(p(".git"), "gitdir: store\n");
    git("config", "core.hooksPath", "scripts/githooks");
    git("config", "include.path", "../shared.gitconfig");
    git("config", "--add", "include.path", "../missing.gitconfig");
    await writeFile(p("shared.gitconfig"), "[user]\n\tname = x\n");
    await mkdir(p("editor"));
    await symlink("editor", p(".vscode"));
    const surfaces = await resolveHostExecutionSurfaces(project, options());
    expect(surfaces.problems).toEqual([]);
    for (const path of [
      "store/config",
      "store/hooks/pre-commit",
      "scripts/githooks/pre-commit",
      "shared.gitconfig",
      "missing.gitconfig",
      "editor/tasks.json",
      ".git",
      ".husky/pre-commit",
      ".envrc",
    ])
      expect(surfaces.matchRelative(path), path).toBeDefined();
    for (const path of ["scripts/build.sh", "src/a.ts", "editorial.md", "storefront/x"])
      expect(surfaces.matchRelative(path), path).toBeUndefined();
    expect(surfaces.match(p("store/config"))!.reason).toMatch(/git config file/);
    expect(surfaces.match(p("scripts/githooks/x"))!.reason).toMatch(/hooks folder/);
    expect(surfaces.match(p("missing.gitconfig"))).toMatchObject({ exists: false, kind: "git" });
    expect(surfaces.match(p("editor/settings.json"))).toMatchObject({ kind: "protected" });
    // What a sandbox mounts: existing paths, real.
    expect(surfaces.paths).toEqual(expect.arrayContaining([p("store"), p("shared.gitconfig"), p("editor")]));
  });

  it("follows .git linked to another folder and links inside it", async () => {
    await rename(p(".git"), p("gitstore"));
    await symlink("gitstore", p(".git"));
    await rm(p("gitstore/hooks"), { recursive: true, force: true });
    await mkdir(p("tools/hooks"), { recursive: true });
    await symlink("../tools/hooks", p("gitstore/hooks"));
    const surfaces = await resolveHostExecutionSurfaces(project, options());
    expect(surfaces.matchRelative("gitstore/config")).toBeDefined();
    expect(surfaces.matchRelative("tools/hooks/post-checkout")).toBeDefined();
    expect(surfaces.matchRelative("tools/build.sh")).toBeUndefined();
  });

  it("counts project scripts git's config names as programs (filters, fsmonitor, ! aliases)", async () => {
    git("config", "filter.x.clean", "./tools/clean.sh %f");
    git("config", "alias.go", "!sh scripts/go.sh");
    const surfaces = await resolveHostExecutionSurfaces(project, options());
    expect(surfaces.matchRelative("tools/clean.sh")!.reason).toMatch(/filter\.x\.clean/);
    expect(surfaces.matchRelative("scripts/go.sh")!.reason).toMatch(/alias\.go/);
  });

  it("runs no project code: fsmonitor, a project git on PATH and GIT_* variables play no part", async () => {
    const marker = join(base, "ran");
    await writeFile(p("fsmon.sh"), `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(p("fsmon.sh"), 0o755);
    git("config", "core.fsmonitor", p("fsmon.sh"));
    await mkdir(p("bin"));
    await writeFile(p("bin/git"), `#!/bin/sh\ntouch ${marker}\n`);
    await chmod(p("bin/git"), 0o755);
    const hostile = { ...env(), PATH: `${p("bin")}:.:${process.env.PATH}`, GIT_DIR: join(base, "elsewhere") };
    const facts = await probeGit(project, { untrusted: [project], env: hostile });
    expect(facts.gitDir).toBe(p(".git"));
    expect(existsSync(marker)).toBe(false);
    expect(findTrustedExecutable("git", hostile.PATH, [project])).not.toContain(project);
    const surfaces = await resolveHostExecutionSurfaces(project, { home, git: { env: hostile } });
    expect(surfaces.matchRelative("fsmon.sh")!.reason).toMatch(/core\.fsmonitor/);
    expect(existsSync(marker)).toBe(false);
  });

  it("works on a copy of the tree, and without git from the .git file alone", async () => {
    await rename(p(".git"), p("store"));
    await writeFile(p(".git"), "gitdir: store\n");
    const copy = join(base, "copy");
    await cp(project, copy, { recursive: true, verbatimSymlinks: true });
    const onCopy = await resolveHostExecutionSurfaces(copy, options());
    expect(onCopy.matchRelative("store/hooks/pre-commit")).toBeDefined();
    expect(onCopy.match(p("store/config"))).toBeUndefined();
    const lexical = await resolveHostExecutionSurfaces(project, { home, git: false });
    expect(lexical.matchRelative("store/config")).toBeDefined();
  });
});

describe("the surface cache", () => {
  it("reuses the answer until a file it was built from changes", async () => {
    const cache = createHostSurfaceCache(options());
    const first = await cache.get(project);
    expect(await cache.get(project)).toBe(first);
    await writeFile(p("src.txt"), "an ordinary edit\n");
    expect(await cache.get(project)).toBe(first);
    git("config", "core.hooksPath", ".githooks");
    const second = await cache.get(project);
    expect(second).not.toBe(first);
    expect(second.matchRelative(".githooks/pre-push")).toBeDefined();
    expect(cache.peek(project)).toBe(second);
  });
});
