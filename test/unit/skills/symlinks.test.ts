import { mkdir, rename, rm, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";
import { loadSkills, readSkillContent } from "../../../src/skills/load.js";
import { createSkillTrustStore } from "../../../src/skills/trust-store.js";
import type { SkillSource } from "../../../src/skills/types.js";
import { makeTempDir, skillMd, writeTree } from "./temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;
let source: SkillSource;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  source = { dir: join(root, "skills"), scope: "user", label: "User" };
  await writeTree(root, {
    "skills/local/SKILL.md": skillMd("local", "Inside the root."),
    "outside/shared/SKILL.md": skillMd("shared", "Lives outside every skill root."),
    "outside/other/SKILL.md": skillMd("other", "Another outside skill."),
    "secret/SKILL.md": skillMd("secret", "Must never be read."),
  });
});
afterEach(() => cleanup());

describe("symlinked skills", () => {
  it("refuses a skill dir linking outside the roots and lists it as pending", async () => {
    await symlink(join(root, "outside", "shared"), join(root, "skills", "shared"));
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [source] });
    expect(result.items.map((skill) => skill.name)).toEqual(["local"]);
    expect(result.pendingSymlinks).toEqual([
      { skillName: "shared", linkPath: join(root, "skills", "shared"), target: join(root, "outside", "shared") },
    ]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ severity: "warning", message: expect.stringMatching(/refused.*extra_allowed_dirs/) }),
    );
  });

  it("refuses a SKILL.md file that links outside, pending on the target's directory", async () => {
    await mkdir(join(root, "skills", "sneaky"));
    await symlink(join(root, "secret", "SKILL.md"), join(root, "skills", "sneaky", "SKILL.md"));
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [source] });
    expect(result.items.map((skill) => skill.name)).toEqual(["local"]);
    expect(result.pendingSymlinks).toEqual([
      { skillName: "sneaky", linkPath: join(root, "skills", "sneaky", "SKILL.md"), target: join(root, "secret") },
    ]);
  });

  it("accepts a link whose target is in extra_allowed_dirs", async () => {
    await symlink(join(root, "outside", "shared"), join(root, "skills", "shared"));
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source],
      extraAllowedDirs: [join(root, "outside")],
    });
    expect(result.items.map((skill) => skill.name).sort()).toEqual(["local", "shared"]);
    expect(result.pendingSymlinks).toEqual([]);
    // The allowlist only widens containment; it does not discover skills by itself.
    expect(result.items.some((skill) => skill.name === "other")).toBe(false);
  });

  it("expands ~ in extra dirs and reports relative ones", async () => {
    await symlink(join(root, "outside", "shared"), join(root, "skills", "shared"));
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source],
      extraAllowedDirs: ["~/outside", "relative/dir"],
      home: root,
    });
    expect(result.items.map((skill) => skill.name)).toContain("shared");
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/'relative\/dir' is not an absolute path/) }),
    );
  });

  it("accepts a link whose target the user approved", async () => {
    await symlink(join(root, "outside", "shared"), join(root, "skills", "shared"));
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source],
      approvedTargets: new Set([join(root, "outside", "shared")]),
    });
    expect(result.items.map((skill) => skill.name).sort()).toEqual(["local", "shared"]);
    expect(result.roots).toContain(join(root, "outside", "shared"));
  });

  it("refuses again when the link is re-pointed after approval", async () => {
    const link = join(root, "skills", "shared");
    await symlink(join(root, "outside", "shared"), link);
    const approved = new Set([join(root, "outside", "shared")]);
    await rm(link);
    await symlink(join(root, "outside", "other"), link);
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source],
      approvedTargets: approved,
    });
    expect(result.items.map((skill) => skill.name)).toEqual(["local"]);
    expect(result.pendingSymlinks[0]?.target).toBe(join(root, "outside", "other"));
  });

  it("drops an approval whose directory was swapped for a symlink", async () => {
    const store = createSkillTrustStore({ stateDir: join(root, "state") });
    const approvedDir = join(root, "outside", "shared");
    await symlink(approvedDir, join(root, "skills", "shared"));
    await store.approve(approvedDir);
    expect((await store.load()).items).toEqual([approvedDir]);

    // Swap: the approved directory becomes a link to a directory the user never saw.
    await rename(approvedDir, join(root, "outside", "moved"));
    await symlink(join(root, "secret"), approvedDir);

    const trusted = await store.load();
    expect(trusted.items).toEqual([]);
    expect(trusted.diagnostics[0]?.message).toMatch(/no longer resolves to itself/);
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source],
      approvedTargets: [approvedDir],
    });
    expect(result.items.map((skill) => skill.name)).toEqual(["local"]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/no longer resolves to itself/) }),
    );
  });

  it("re-checks containment when reading content for /skill:", async () => {
    await symlink(join(root, "outside", "shared"), join(root, "skills", "shared"));
    const loaded = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source],
      approvedTargets: [join(root, "outside", "shared")],
    });
    const skill = loaded.items.find((s) => s.name === "shared")!;
    expect(await readSkillContent(skill, loaded.roots)).toMatchObject({
      ok: true,
      content: expect.stringContaining("Lives outside"),
    });
    await rm(join(root, "skills", "shared"));
    await symlink(join(root, "secret"), join(root, "skills", "shared"));
    const again = await readSkillContent(skill, loaded.roots);
    expect(again.ok).toBe(false);
    expect(!again.ok && again.error).toMatch(/outside the skill directories/);
  });

  it("reports a dangling skill link", async () => {
    await symlink(join(root, "nowhere"), join(root, "skills", "dangling"));
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [source] });
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        source: join(root, "skills", "dangling"),
        message: expect.stringMatching(/broken symlink/),
      }),
    );
  });

  it("allows links between skill roots", async () => {
    const project: SkillSource = { dir: join(root, "project-skills"), scope: "project", label: "Project" };
    await mkdir(project.dir);
    await symlink(join(root, "skills", "local"), join(project.dir, "local"));
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [source, project] });
    expect(result.items).toEqual([expect.objectContaining({ name: "local", scope: "project" })]);
  });

  it("skips SKILL.md files over 10 MiB", async () => {
    await mkdir(join(root, "skills", "huge"));
    await writeFile(join(root, "skills", "huge", "SKILL.md"), skillMd("huge", "big") + "x".repeat(10 * 1024 * 1024));
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [source] });
    expect(result.items.map((skill) => skill.name)).toEqual(["local"]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ message: expect.stringMatching(/larger than 10 MiB/) }),
    );
  });
});

describe("skills folders that link out of their owner", () => {
  it("refuses a project skills folder linked to the home directory, and asks about the folder", async () => {
    const home = join(root, "home");
    await writeTree(home, {
      ".ssh/id_rsa": "PRIVATE KEY MARKER",
      "notes/SKILL.md": skillMd("notes", "A skill in home."),
    });
    const project = join(root, "project");
    await mkdir(join(project, ".agents"), { recursive: true });
    await symlink(home, join(project, ".agents", "skills"));
    const projectSource: SkillSource = {
      dir: join(project, ".agents", "skills"),
      scope: "project",
      label: "Project (.agents)",
      owner: project,
    };

    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [source, projectSource] });
    expect(result.items.map((skill) => skill.name)).toEqual(["local"]);
    expect(result.pendingSymlinks).toEqual([
      { skillName: `skills folder ${projectSource.dir}`, kind: "folder", linkPath: projectSource.dir, target: home },
    ]);
    expect(result.roots.some((dir) => home === dir || home.startsWith(`${dir}/`))).toBe(false);
    expect(result.roots).toEqual([join(root, "skills", "local")]);

    // Approved: its skills load, but only their own folders become readable, never $HOME itself.
    const approved = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [source, projectSource],
      approvedTargets: [home],
    });
    expect(approved.items.map((skill) => skill.name).sort()).toEqual(["local", "notes"]);
    expect(approved.roots.sort()).toEqual([join(home, "notes"), join(root, "skills", "local")].sort());
  });

  it("refuses a folder linked to / and a plugin skills folder that leaves the plugin", async () => {
    const project = join(root, "project");
    await mkdir(join(project, ".agents"), { recursive: true });
    await symlink("/", join(project, ".agents", "skills"));
    const plugin = join(root, "plugin");
    await mkdir(plugin);
    await symlink(join(root, "outside"), join(plugin, "skills"));
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [
        { dir: join(plugin, "skills"), scope: "plugin", label: "Plugin: p@m", pluginId: "p@m", owner: plugin },
        { dir: join(project, ".agents", "skills"), scope: "project", label: "Project (.agents)", owner: project },
      ],
    });
    expect(result.items).toEqual([]);
    expect(result.pendingSymlinks.map((p) => [p.kind, p.target])).toEqual([
      ["folder", join(root, "outside")],
      ["folder", "/"],
    ]);
    expect(result.roots).toEqual([]);
  });

  it("keeps a skills folder whose real path stays inside its owner", async () => {
    const project = join(root, "project");
    await writeTree(project, { "shared-skills/tool/SKILL.md": skillMd("tool", "In the repo.") });
    await mkdir(join(project, ".agents"), { recursive: true });
    await symlink(join(project, "shared-skills"), join(project, ".agents", "skills"));
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [
        { dir: join(project, ".agents", "skills"), scope: "project", label: "Project (.agents)", owner: project },
      ],
    });
    expect(result.items.map((skill) => skill.name)).toEqual(["tool"]);
    expect(result.roots).toEqual([join(project, "shared-skills", "tool")]);
  });
});

describe("plugin skill sources", () => {
  it("namespaces plugin skills as plugin@marketplace:<subfolders>:<name>, lowercased", async () => {
    await writeTree(root, {
      "plugin/skills/Review/SKILL.md": skillMd("Review", "Top-level plugin skill."),
      "plugin/skills/group/lint/SKILL.md": skillMd("lint", "Nested plugin skill."),
    });
    const plugin: SkillSource = {
      dir: join(root, "plugin", "skills"),
      scope: "plugin",
      label: "Plugin: kit@acme",
      pluginId: "Kit@Acme",
    };
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [plugin, source] });
    expect(result.items.map((skill) => skill.name).sort()).toEqual(["kit@acme:group:lint", "kit@acme:review", "local"]);
    expect(result.items.find((skill) => skill.name === "kit@acme:review")).toMatchObject({
      scope: "plugin",
      pluginId: "Kit@Acme",
    });
  });
});
