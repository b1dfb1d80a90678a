import type { ProjectFileCheck } from "../../util/project-file-check.js";
import { isWithin } from "../../util/path-within.js";

// Project files the agent reads into the prompt with no dialog — memory (AGENTS.md), a project skill's
// SKILL.md, a subagent definition — are what a hostile repository controls. Such a file counts only
// when its real path stays inside the project and it has no other name: a symlink or a hard link to
// ~/.ssh/id_rsa must not reach the model. The loaders resolve and stat the file (they need both
// anyway); the decision is made here.

/** Undefined when the file may be read without asking, else why not (a diagnostic for the user). */
export const projectFileRefusal: ProjectFileCheck = ({ real, projectRoot, hardLinks }) => {
  if (!isWithin(real, projectRoot)) return `symlink resolves to ${real}, outside the project; not loaded`;
  if (hardLinks > 1) return `has ${hardLinks} hard links (the same file may live outside the project); not loaded`;
  return undefined;
};
