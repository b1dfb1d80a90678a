import { join } from "node:path";
import { expect, it } from "vitest";
import { createPendingChanges } from "../../../src/extensions/pending-changes.js";

const root = "/p/.deepagents/skills";
const onDisk = new Set([join(root, "kept"), join(root, "fresh")]);

it("names added, changed and removed skills and the other kinds of change, latest state winning", () => {
  const pending = createPendingChanges({
    skillRoots: [root],
    loadedSkillDirs: [join(root, "kept"), join(root, "gone")],
    exists: (p) => onDisk.has(p),
  });
  expect(pending.describe()).toBe("");
  pending.add({ labels: ["skills"], paths: [join(root, "fresh", "SKILL.md")] });
  expect(pending.describe()).toBe("skill fresh added");
  pending.add({
    labels: ["memory", "skills"],
    paths: ["/p/AGENTS.md", join(root, "kept", "SKILL.md"), join(root, "gone")],
  });
  expect(pending.describe()).toBe("skill fresh added; skill kept changed; skill gone removed; memory changed");
  pending.add({ labels: ["skills"], paths: ["/home/me/.deepagents/.state/skill_trust.json"] });
  expect(pending.describe()).toContain("skills changed");
});

it("forgets a skill folder that came and went before any reload", () => {
  const pending = createPendingChanges({ skillRoots: [root], loadedSkillDirs: [], exists: () => false });
  pending.add({ labels: ["skills"], paths: [join(root, "tmp", "SKILL.md")] });
  expect(pending.describe()).toBe("");
});

it("takes only folders strictly inside a skills root as skills: not the root, not a sibling sharing its prefix", () => {
  const pending = createPendingChanges({ skillRoots: [root], loadedSkillDirs: [], exists: () => true });
  pending.add({ labels: ["skills"], paths: [root, `${root}-old/stale/SKILL.md`] });
  expect(pending.describe()).toBe("skills changed");
  const dotted = createPendingChanges({ skillRoots: [root], loadedSkillDirs: [], exists: () => true });
  dotted.add({ labels: ["skills"], paths: [join(root, "..x", "SKILL.md")] });
  expect(dotted.describe()).toBe("skill ..x added");
});
