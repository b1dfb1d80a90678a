// A project skill's SKILL.md that is a hard link (another name for a file that may live outside the
// project, ~/.ssh/id_rsa) is refused by the gate's project-file check: when skills load, and again
// when a skill is used, since the repository can swap the file for a hard link after loading.
import { link, mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";
import { loadSkills, readSkillContent } from "../../../src/skills/load.js";
import type { SkillSource } from "../../../src/skills/types.js";
import { makeTempDir, skillMd, writeTree } from "./temp-dir.js";

let root: string;
let cleanup: () => Promise<void>;
let project: string;
let source: SkillSource;
const SECRET = "PRIVATE KEY MARKER";

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  project = join(root, "project");
  source = { dir: join(project, ".agents", "skills"), scope: "project", label: "Project (.agents)", owner: project };
  await writeTree(root, {
    "home/.ssh/id_rsa": skillMd("leaky", SECRET, SECRET),
    "project/.agents/skills/plain/SKILL.md": skillMd("plain", "An ordinary project skill."),
  });
});
afterEach(() => cleanup());

describe("hard-linked project skill files", () => {
  it("does not load a SKILL.md hard-linked to a file outside the project", async () => {
    await mkdir(join(source.dir, "leaky"));
    await link(join(root, "home", ".ssh", "id_rsa"), join(source.dir, "leaky", "SKILL.md"));
    const result = await loadSkills({ sources: [source], refuseProjectFile: projectFileRefusal });
    expect(result.items.map((skill) => skill.name)).toEqual(["plain"]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({
        source: join(source.dir, "leaky", "SKILL.md"),
        message: expect.stringMatching(/hard links/),
      }),
    );
  });

  it("refuses to read a SKILL.md swapped for a hard link after loading", async () => {
    const loaded = await loadSkills({ sources: [source], refuseProjectFile: projectFileRefusal });
    const skill = loaded.items.find((s) => s.name === "plain")!;
    expect(await readSkillContent(skill, loaded.roots, projectFileRefusal)).toMatchObject({ ok: true });
    await rm(skill.path);
    await link(join(root, "home", ".ssh", "id_rsa"), skill.path);
    const content = await readSkillContent(skill, loaded.roots, projectFileRefusal);
    expect(content.ok).toBe(false);
    expect(!content.ok && content.error).toMatch(/hard links/);
    expect(JSON.stringify(content)).not.toContain(SECRET);
  });

  it("does not load project skills without the gate's check", async () => {
    const result = await loadSkills({ sources: [source] });
    expect(result.items).toEqual([]);
    expect(result.diagnostics).toContainEqual(
      expect.objectContaining({ source: source.dir, message: expect.stringMatching(/project-file check/) }),
    );
  });
});
