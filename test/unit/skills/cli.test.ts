import { lstat, mkdir, readFile, stat, symlink } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";
import { userPaths } from "../../../src/config/paths.js";
import { materializeBuiltinSkills } from "../../../src/skills/builtin/index.js";
import { createSkillsCli } from "../../../src/skills/cli.js";
import { loadSkills } from "../../../src/skills/load.js";
import { defaultSkillSources } from "../../../src/skills/sources.js";
import { makeTempDir, skillMd, writeTree } from "./temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;
let home: string;
let project: string;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  home = join(root, "home");
  project = join(root, "repo");
  await mkdir(project, { recursive: true });
});
afterEach(() => cleanup());

async function cli() {
  const user = userPaths("agent", home);
  const builtin = await materializeBuiltinSkills(join(user.stateDir, "builtin-skills"));
  const sources = defaultSkillSources({ user, projectRoot: project, builtinDir: builtin.dir });
  return createSkillsCli({
    refuseProjectFile: projectFileRefusal,
    sources,
    userSkillsDir: user.skillsDirs[0]!,
    projectSkillsDir: join(project, ".deepagents", "skills"),
  });
}

describe("deep-acp skills", () => {
  it("orders sources builtin, plugins, user, project", () => {
    const sources = defaultSkillSources({
      user: userPaths("agent", "/h"),
      projectRoot: "/p",
      builtinDir: "/b",
      pluginSources: [{ dir: "/plug", scope: "plugin", label: "Plugin: a@b", pluginId: "a@b" }],
    });
    expect(sources.map((s) => s.dir)).toEqual([
      "/b",
      "/plug",
      "/h/.deepagents/agent/skills",
      "/h/.agents/skills",
      "/p/.deepagents/skills",
      "/p/.agents/skills",
    ]);
  });

  it("lists a directory that is both a user and a project source once, as project", () => {
    const sources = defaultSkillSources({ user: userPaths("agent", "/h"), projectRoot: "/h" });
    expect(sources.filter((s) => s.dir === "/h/.agents/skills")).toEqual([
      { dir: "/h/.agents/skills", scope: "project", label: "Project (.agents)", owner: "/h" },
    ]);
  });

  it("creates a valid user skill and a project skill", async () => {
    const skills = await cli();
    const created = await skills.create("my-skill");
    expect(created.exitCode).toBe(0);
    const path = join(home, ".deepagents", "agent", "skills", "my-skill", "SKILL.md");
    expect(created.text).toContain(path);
    const loaded = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [{ dir: join(home, ".deepagents", "agent", "skills"), scope: "user", label: "User" }],
    });
    expect(loaded.diagnostics).toEqual([]);
    expect(loaded.items.map((s) => s.name)).toEqual(["my-skill"]);

    expect((await skills.create("proj", { project: true })).exitCode).toBe(0);
    expect(await readFile(join(project, ".deepagents", "skills", "proj", "SKILL.md"), "utf8")).toMatch(
      /^---\nname: proj\n/,
    );
  });

  it("refuses invalid names and existing skills", async () => {
    const skills = await cli();
    expect(await skills.create("Bad Name")).toMatchObject({
      exitCode: 1,
      text: expect.stringMatching(/Invalid skill name/),
    });
    await skills.create("dup");
    expect(await skills.create("dup")).toMatchObject({ exitCode: 1, text: expect.stringMatching(/already exists/) });
  });

  it("lists skills by source with problems and refused links", async () => {
    await writeTree(home, {
      ".deepagents/agent/skills/alpha/SKILL.md": skillMd("alpha", "Alpha skill."),
      ".deepagents/agent/skills/broken/SKILL.md": "no frontmatter",
      "elsewhere/linked/SKILL.md": skillMd("linked", "Outside."),
    });
    await symlink(join(home, "elsewhere", "linked"), join(home, ".deepagents", "agent", "skills", "linked"));
    const result = await (await cli()).list();
    expect(result.exitCode).toBe(0);
    expect(result.text).toMatch(/Built-in skills \(.*builtin-skills\):\n {2}remember/);
    expect(result.text).toMatch(/User skills \(.*\):\n {2}alpha\n {4}Alpha skill\./);
    expect(result.text).toMatch(/Problems:\n.*broken\/SKILL\.md: skill skipped/);
    expect(result.text).toContain(
      `linked: ${join(home, ".deepagents", "agent", "skills", "linked")} -> ${join(home, "elsewhere", "linked")}`,
    );
  });

  it("shows info with the body, and fails for unknown names", async () => {
    await writeTree(project, {
      ".deepagents/skills/alpha/SKILL.md": skillMd("alpha", "Project alpha.", "# Steps\n1. go"),
    });
    await writeTree(home, { ".deepagents/agent/skills/alpha/SKILL.md": skillMd("alpha", "User alpha.") });
    const skills = await cli();
    const info = await skills.info("alpha");
    expect(info.exitCode).toBe(0);
    expect(info.text).toContain("Description: Project alpha.");
    expect(info.text).toContain("Source: Project (project)");
    expect(info.text).toContain(`Overrides: ${join(home, ".deepagents", "agent", "skills", "alpha", "SKILL.md")}`);
    expect(info.text).toMatch(/# Steps\n1\. go$/);
    expect(await skills.info("nope")).toMatchObject({
      exitCode: 1,
      text: expect.stringMatching(/not found\. Available: alpha, remember, skill-creator/),
    });
  });

  it("deletes a user skill, revealing the lower-priority one", async () => {
    await writeTree(project, { ".deepagents/skills/alpha/SKILL.md": skillMd("alpha", "Project alpha.") });
    await writeTree(home, { ".deepagents/agent/skills/alpha/SKILL.md": skillMd("alpha", "User alpha.") });
    const result = await (await cli()).delete("alpha");
    expect(result).toMatchObject({
      exitCode: 0,
      text: expect.stringMatching(/lower-priority skill at .*agent\/skills\/alpha\/SKILL\.md is now active/),
    });
    await expect(stat(join(project, ".deepagents", "skills", "alpha"))).rejects.toThrow();
  });

  it("deletes only the link of a symlinked skill", async () => {
    await writeTree(project, { "shared/alpha/SKILL.md": skillMd("alpha", "Shared.") });
    await mkdir(join(project, ".deepagents", "skills"), { recursive: true });
    await symlink(join(project, "shared", "alpha"), join(project, ".deepagents", "skills", "alpha"));
    const user = userPaths("agent", home);
    const skills = createSkillsCli({
      refuseProjectFile: projectFileRefusal,
      sources: defaultSkillSources({ user, projectRoot: project }),
      userSkillsDir: user.skillsDirs[0]!,
      extraAllowedDirs: [join(project, "shared")],
    });
    expect((await skills.delete("alpha")).exitCode).toBe(0);
    await expect(lstat(join(project, ".deepagents", "skills", "alpha"))).rejects.toThrow();
    expect(await readFile(join(project, "shared", "alpha", "SKILL.md"), "utf8")).toContain("Shared.");
  });

  it("refuses to delete built-in skills", async () => {
    expect(await (await cli()).delete("remember")).toMatchObject({
      exitCode: 1,
      text: expect.stringMatching(/built-in/),
    });
  });
});
