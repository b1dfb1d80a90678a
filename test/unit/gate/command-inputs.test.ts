// Which remembered commands a change drops: the programs that read the changed file to decide what
// they run, found as the tools find them (make includes, node_modules/.bin links, git's resolution).
import { execFileSync } from "node:child_process";
import { link, mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { programsChangedBy } from "../../../src/gate/commands/command-inputs.js";
import { deniedNameOf } from "../../../src/gate/rules/denied-names.js";
import { resolveHostExecutionSurfaces } from "../../../src/gate/surfaces/host-surfaces.js";
import { subagentModelRefusal } from "../../../src/gate/seams/subagent-model.js";
import { resolveRealTarget } from "../../../src/backends/paths/real-path.js";
import { compileFileRules } from "../../../src/gate/rules/file-rules.js";

let root: string;
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-inputs-")));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("programsChangedBy", () => {
  it("follows make includes to any depth, and names built from variables by their literal part", async () => {
    await mkdir(join(root, "mk"));
    await writeFile(join(root, "Makefile"), "include mk/a.inc\n-include $(BUILD)/gen.rules\nall:\n");
    await writeFile(join(root, "mk/a.inc"), "sinclude mk/b.inc\n");
    await writeFile(join(root, "mk/b.inc"), "x:\n");
    for (const file of ["Makefile", "mk/a.inc", "mk/b.inc", "out/gen.rules"])
      expect(await programsChangedBy(join(root, file), root), file).toContain("make");
    expect(await programsChangedBy(join(root, "src/main.c"), root)).toEqual([]);
  });

  it("drops npm approvals when what a node_modules/.bin link runs changes", async () => {
    await mkdir(join(root, "node_modules/.bin"), { recursive: true });
    await mkdir(join(root, "node_modules/jest/bin"), { recursive: true });
    await writeFile(join(root, "node_modules/jest/bin/jest.js"), "x");
    await symlink("../jest/bin/jest.js", join(root, "node_modules/.bin/jest"));
    expect(await programsChangedBy(join(root, "node_modules/jest/bin/jest.js"), root)).toContain("npm");
    expect(await programsChangedBy(join(root, "node_modules/jest/README.md"), root)).toEqual([]);
  });

  it("drops git approvals when anything git resolves changes, also an include named anywhere", async () => {
    execFileSync("git", ["init", "-q"], { cwd: root, env: { PATH: process.env.PATH, HOME: root } });
    execFileSync("git", ["config", "include.path", "../team.cfg"], { cwd: root, env: { PATH: process.env.PATH } });
    const surfaces = await resolveHostExecutionSurfaces(root, { home: root });
    expect(await programsChangedBy(join(root, "team.cfg"), root, { surfaces })).toContain("git");
    expect(await programsChangedBy(join(root, ".vscode/tasks.json"), root, { surfaces })).toEqual([]);
  });
});

describe("deny rules and hard links", () => {
  it("finds the denied name of a hard-linked file by device and inode", async () => {
    await mkdir(join(root, "secret"));
    await writeFile(join(root, "secret/key"), "K");
    await mkdir(join(root, "project"));
    await link(join(root, "secret/key"), join(root, "project/copy.txt"));
    await writeFile(join(root, "project/other.txt"), "O");
    const rules = compileFileRules([{ operations: ["read"], paths: [`${root}/secret/**`], mode: "deny" }]).items;
    const copy = await resolveRealTarget(join(root, "project/copy.txt"));
    expect(await deniedNameOf(rules, "read", copy.identity!)).toEqual({ path: join(root, "secret/key") });
    const other = await resolveRealTarget(join(root, "project/other.txt"));
    expect(await deniedNameOf(rules, "read", other.identity!)).toBeUndefined();
    expect(await deniedNameOf(rules, "write", copy.identity!)).toBeUndefined();
  });
});

describe("project subagents' models", () => {
  const configured = new Set(["anthropic"] as const);
  it.each([
    ["anthropic:claude-sonnet-4-5", "project", undefined],
    ["ollama:llama3", "project", /ollama is not configured/],
    ["lmstudio:x", "project", /lmstudio is not configured/],
    ["ollama:llama3", "user", undefined],
    ["nonsense:x", "project", /Unknown model provider/],
  ] as const)("%s from %s", (spec, source, refusal) => {
    const why = subagentModelRefusal(spec, source, configured);
    if (refusal) expect(why).toMatch(refusal);
    else expect(why).toBeUndefined();
  });
});
