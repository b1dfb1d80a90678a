import { describe, expect, it } from "vitest";
import { skillInvocationPrompt, skillsPromptSection } from "../../../src/skills/prompt.js";
import type { Skill, SkillSource } from "../../../src/skills/types.js";

const sources: SkillSource[] = [
  { dir: "/home/u/.deepagents/agent/skills", scope: "user", label: "User" },
  { dir: "/repo/.deepagents/skills", scope: "project", label: "Project" },
];
const skill: Skill = {
  name: "deploy",
  description: "Deploy to staging.",
  path: "/repo/.deepagents/skills/deploy/SKILL.md",
  dir: "/repo/.deepagents/skills/deploy",
  scope: "project",
  source: "Project",
  sourceDir: "/repo/.deepagents/skills",
  license: "MIT",
  allowedTools: ["execute"],
};

describe("skillsPromptSection", () => {
  it("lists name, description and path, never the body", () => {
    const text = skillsPromptSection([skill], sources);
    expect(text).toMatch(/^## Skills System/);
    expect(text).toContain("- **deploy**: Deploy to staging. (License: MIT)");
    expect(text).toContain("  → Allowed tools: execute");
    expect(text).toContain("  → Read `/repo/.deepagents/skills/deploy/SKILL.md` for full instructions");
    expect(text).toContain("`/repo/.deepagents/skills` (highest priority)");
    expect(text).toContain("limit: 1000");
  });

  it("says where skills can be created when there are none", () => {
    expect(skillsPromptSection([], sources)).toContain(
      "(No skills available yet. Skills can be created in `/home/u/.deepagents/agent/skills` or `/repo/.deepagents/skills`.)",
    );
  });
});

describe("skillInvocationPrompt", () => {
  it("wraps the SKILL.md and appends the request", () => {
    expect(skillInvocationPrompt(skill, "BODY", "to prod")).toBe(
      "I'm invoking the skill `deploy`. Below are the full instructions from the skill's SKILL.md file. Follow these instructions to complete the task.\n\n---\nBODY\n---\n\n**User request:** to prod",
    );
    expect(skillInvocationPrompt(skill, "BODY")).not.toContain("User request");
  });
});
