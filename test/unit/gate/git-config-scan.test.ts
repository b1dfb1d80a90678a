// The probe fails closed (issue 34.5): our own reading of git's config agrees with git's on the
// syntax, follows every condition's include, never reads a FIFO, device or /dev/stdin, and any
// answer short of complete (overflow, timeout, refused include) is "unknown", which protects
// hooks-like paths and every path git's config names; an unknown answer is asked again later.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, realpath, rm, writeFile, appendFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseGitConfig, scanGitConfig } from "../../../src/gate/surfaces/git-config-scan.js";
import { parseConfigList, probeGit } from "../../../src/gate/surfaces/git-probe.js";
import { createHostSurfaceCache } from "../../../src/gate/surfaces/host-surface-cache.js";
import { resolveHostExecutionSurfaces } from "../../../src/gate/surfaces/host-surfaces.js";

let base: string;
let home: string;
let project: string;
const env = () => ({ PATH: process.env.PATH, HOME: home });
const git = (...args: string[]) => execFileSync("git", args, { cwd: project, env: env(), encoding: "utf8" });
const p = (name: string) => join(project, name);
const options = () => ({ home, git: { env: env() } });

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-scan-")));
  home = join(base, "home");
  project = join(base, "project");
  await mkdir(home);
  await mkdir(project);
  git("init", "-q");
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe("parseGitConfig", () => {
  it("reads what git reads: headers, keys on the header's line, quotes, escapes, continuations, comments", async () => {
    const text = [
      "\uFEFF[Core]  hooksPath = a b  # comment",
      '[core] editor = "vi  -x" ; again',
      '[includeIf "onbranch:fe\\"at/*"]',
      "\tPath = ../x.gitconfig",
      "[alias]",
      "\tst = status \\",
      "  --short",
      '\tq = "a\\tb\\\\c\\"d" tail ',
      "\tflag",
      "[a.B]\r\n\tk = v\r",
      "; end",
    ].join("\n");
    const file = p("tricky.gitconfig");
    await writeFile(file, text);
    const fromGit = parseConfigList(git("config", "--file", file, "--list", "--show-origin", "-z"), project);
    const ours = parseGitConfig(text, file);
    expect(ours.error).toBeUndefined();
    expect(ours.entries.map((e) => [e.key, e.value])).toEqual(fromGit.map((e) => [e.key, e.value]));
    expect(ours.entries[0]).toEqual({ origin: file, key: "core.hookspath", value: "a b" });
  });

  it("says where git would refuse the file", () => {
    expect(parseGitConfig('[core]\n\tx = "open\n', "f").error).toMatch(/line 2/);
    expect(parseGitConfig("key = outside\n", "f").error).toMatch(/expected a key/);
  });
});

describe("scanGitConfig", () => {
  it("follows every include whatever its condition, and depth-limited chains", async () => {
    await writeFile(
      p("main.gitconfig"),
      '[includeIf "onbranch:later"]\n\tpath = a.gitconfig\n[includeIf "hasconfig:remote.*.url:x"]\n\tpath = ~/b.gitconfig\n',
    );
    await writeFile(p("a.gitconfig"), "[include]\n\tpath = missing.gitconfig\n[core]\n\thooksPath = later\n");
    await writeFile(join(home, "b.gitconfig"), "[core]\n\tfsmonitor = ./fsmon.sh\n");
    const scan = await scanGitConfig([p("main.gitconfig")], { home });
    expect(scan.unknown).toEqual([]);
    expect(scan.entries.map((e) => `${e.key}=${e.value}`)).toContain("core.hookspath=later");
    expect(scan.entries.map((e) => `${e.key}=${e.value}`)).toContain("core.fsmonitor=./fsmon.sh");
    expect(scan.files).toContain(p("missing.gitconfig"));
  });

  it("never reads a FIFO, a device, /dev/stdin or a folder, and says so", async () => {
    execFileSync("mkfifo", [p("fifo")]);
    await mkdir(p("folder"));
    await writeFile(
      p("main.gitconfig"),
      "[include]\n\tpath = fifo\n\tpath = /dev/stdin\n\tpath = /dev/zero\n\tpath = folder\n[core]\n\thooksPath = after\n",
    );
    const started = Date.now();
    const scan = await scanGitConfig([p("main.gitconfig")], { home });
    expect(Date.now() - started).toBeLessThan(1000);
    expect(scan.unknown).toHaveLength(4);
    expect(scan.unknown.join("\n")).toMatch(/fifo.*FIFO/);
    expect(scan.unknown.join("\n")).toMatch(/\/dev\/zero.*device/);
    // The file goes on past a refused include.
    expect(scan.entries.map((e) => e.value)).toContain("after");
  });

  it("a file over the read cap is unknown, not cut short", async () => {
    await writeFile(p("big.gitconfig"), `[x]\n\tv = ${"y".repeat(2000)}\n[core]\n\thooksPath = end\n`);
    const scan = await scanGitConfig([p("big.gitconfig")], { home, maxBytes: 1000 });
    expect(scan.unknown.join("\n")).toMatch(/read limit/);
  });
});

describe("the probe and the surfaces fail closed", () => {
  it("an ordinary repository is known and asks for nothing hooks-like", async () => {
    const surfaces = await resolveHostExecutionSurfaces(project, options());
    expect(surfaces.unknown).toBeUndefined();
    for (const path of ["misc/pre-commit", "tools/hooks/x", "src/a.ts"])
      expect(surfaces.matchRelative(path), path).toBeUndefined();
    expect(surfaces.matchRelative(".git/hooks/pre-commit")).toBeDefined();
  });

  it("git's output over the cap is unknown; the scan still finds the hooks path", async () => {
    // Each entry costs its origin again in git's output: 300 short entries fit the scan's cap, not git's.
    const entries = Array.from({ length: 300 }, (_, i) => `\tv${i} = y\n`).join("");
    await appendFile(p(".git/config"), `[x]\n${entries}[core]\n\thooksPath = tools/hk\n`);
    const facts = await probeGit(project, { untrusted: [project], env: env(), maxBytes: 5000 });
    expect(facts.problems.join("\n")).toMatch(/output over 5000 bytes/);
    expect(facts.config.some((e) => e.key === "core.hookspath" && e.value === "tools/hk")).toBe(true);
  });

  it("an unknown answer protects hooks-like paths and every path the config names, and says why", async () => {
    await appendFile(p(".git/config"), "[include]\n\tpath = /dev/stdin\n[tool]\n\tscript = scripts/odd.sh\n");
    await mkdir(p("tools/githooks"), { recursive: true });
    const surfaces = await resolveHostExecutionSurfaces(project, options());
    // What a sandbox binds read-only: the existing hooks-like folder too.
    expect(surfaces.surfaces.filter((x) => x.exists).map((x) => x.path)).toContain(p("tools/githooks"));
    expect(surfaces.unknown).toMatch(/\/dev\/stdin.*not a regular file/);
    for (const path of ["misc/pre-commit", "tools/githooks/x", ".husky/x", "scripts/odd.sh", ".git/config"])
      expect(surfaces.matchRelative(path), path).toBeDefined();
    expect(surfaces.matchRelative("misc/pre-commit")!.reason).toMatch(/hooks path is unknown/);
    expect(surfaces.matchRelative("src/a.ts")).toBeUndefined();
  });

  it("a FIFO as .git/config or .git/HEAD: unknown at once, git is not run", async () => {
    await rm(p(".git/HEAD"));
    execFileSync("mkfifo", [p(".git/HEAD")]);
    const started = Date.now();
    const facts = await probeGit(project, { untrusted: [project], env: env() });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(facts.problems.join("\n")).toMatch(/HEAD is not a regular file/);
    expect(facts.gitDir).toBe(p(".git"));
    await rm(p(".git/HEAD"));
    await writeFile(p(".git/HEAD"), "ref: refs/heads/main\n");
    await rm(p(".git/config"));
    execFileSync("mkfifo", [p(".git/config")]);
    const again = await probeGit(project, { untrusted: [project], env: env() });
    expect(again.problems.join("\n")).toMatch(/config is not a regular file/);
  });

  it("a timeout is unknown, asked again after the retry interval, and told once", async () => {
    let now = 0;
    const cache = createHostSurfaceCache({ ...options(), git: { env: env(), timeoutMs: 1 }, now: () => now });
    const first = await cache.get(project);
    expect(first.unknown).toMatch(/timed out/);
    expect(cache.takeUnknownNotice()).toMatch(/unknown.*timed out/);
    expect(await cache.get(project)).toBe(first);
    now += 30_001;
    const second = await cache.get(project);
    expect(second).not.toBe(first);
    // Told once per project, however often it is asked again.
    expect(cache.takeUnknownNotice()).toBeUndefined();
  });
});
