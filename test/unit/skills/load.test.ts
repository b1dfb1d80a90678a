import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { projectFileRefusal } from "../../../src/gate/seams/project-file.js";
import { loadSkills } from "../../../src/skills/load.js";
import type { SkillSource } from "../../../src/skills/types.js";

const fixtures = fileURLToPath(new URL("../../fixtures/skills/", import.meta.url));
const user: SkillSource = { dir: join(fixtures, "user"), scope: "user", label: "User" };
const project: SkillSource = { dir: join(fixtures, "project"), scope: "project", label: "Project" };

describe("loadSkills on the fixture tree", () => {
  it("lets a higher source replace a same-named skill whole", async () => {
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [user, project] });
    const review = result.items.find((skill) => skill.name === "code-review");
    expect(review).toMatchObject({
      description: "Project code review rules for this repository.",
      scope: "project",
      source: "Project",
      path: join(fixtures, "project", "code-review", "SKILL.md"),
      overrides: [join(fixtures, "user", "code-review", "SKILL.md")],
    });
    // Whole replacement: the user version's license does not leak into the project version.
    expect(review?.license).toBeUndefined();
    expect(result.items.filter((skill) => skill.name === "code-review")).toHaveLength(1);
  });

  it("keeps the lower source's skill when the order is reversed", async () => {
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [project, user] });
    expect(result.items.find((skill) => skill.name === "code-review")?.license).toBe("Apache-2.0");
  });

  it("keeps a skill whose name does not match its folder, with a warning", async () => {
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [user] });
    expect(result.items.map((skill) => skill.name)).toContain("other-name");
    const warning = result.diagnostics.find((d) => d.source.endsWith(join("name-mismatch", "SKILL.md")));
    expect(warning).toMatchObject({
      severity: "warning",
      message: expect.stringMatching(/does not match directory name 'name-mismatch'/),
    });
    expect(result.items.map((skill) => skill.name)).toContain("Bad_Name");
  });

  it("skips missing description, invalid YAML and missing frontmatter with error diagnostics", async () => {
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [user] });
    const names = result.items.map((skill) => skill.name);
    expect(names).not.toContain("missing-description");
    expect(names).not.toContain("invalid-yaml");
    expect(names).not.toContain("no-frontmatter");
    const errorFor = (folder: string) =>
      result.diagnostics.find((d) => d.severity === "error" && d.source.includes(`${folder}/SKILL.md`));
    expect(errorFor("missing-description")?.message).toMatch(/missing required description/);
    expect(errorFor("invalid-yaml")?.message).toMatch(/invalid YAML/);
    expect(errorFor("no-frontmatter")?.message).toMatch(/no YAML frontmatter/);
  });

  it("truncates long description and compatibility fields", async () => {
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [user] });
    const skill = result.items.find((s) => s.name === "long-description");
    expect(skill?.description).toHaveLength(1024);
    expect(skill?.compatibility).toHaveLength(500);
  });

  it("parses optional fields", async () => {
    const result = await loadSkills({ refuseProjectFile: projectFileRefusal, sources: [user] });
    expect(result.items.find((s) => s.name === "full-fields")).toMatchObject({
      license: "MIT",
      compatibility: "Node 20+",
      allowedTools: ["read_file", "execute", "grep"],
      metadata: { owner: "docs-team", version: "2", tags: '["a","b"]' },
    });
    const list = result.items.find((s) => s.name === "list-tools");
    expect(list?.allowedTools).toEqual(["read_file", "edit_file"]);
    expect(list?.metadata).toBeUndefined();
    expect(
      result.diagnostics.some((d) => d.source.includes("list-tools") && /metadata must be a mapping/.test(d.message)),
    ).toBe(true);
  });

  it("treats a source that holds SKILL.md as one skill, and ignores folders without SKILL.md", async () => {
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [{ dir: join(fixtures, "direct-source"), scope: "user", label: "Direct" }, user],
    });
    expect(result.items.find((s) => s.name === "direct-source")?.dir).toBe(join(fixtures, "direct-source"));
    expect(result.items.some((s) => s.dir.endsWith("not-a-skill"))).toBe(false);
  });

  it("ignores sources that do not exist", async () => {
    const result = await loadSkills({
      refuseProjectFile: projectFileRefusal,
      sources: [{ dir: join(fixtures, "nope"), scope: "user", label: "User" }],
    });
    expect(result).toMatchObject({ items: [], diagnostics: [], pendingSymlinks: [] });
  });
});
