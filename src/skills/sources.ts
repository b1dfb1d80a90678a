import { projectPaths, type UserPaths } from "../config/paths.js";
import type { SkillSource } from "./types.js";

export type SkillSourcesOptions = {
  /** userPaths(agent, home) from config/paths. */
  user: UserPaths;
  /** `<root>` of the session; omit outside a project (CLI without cwd project). */
  projectRoot?: string;
  /** Where materializeBuiltinSkills wrote the built-ins; omit to leave them out. */
  builtinDir?: string;
  /** From loadEnabledPlugins (each plugin's `skillSources`). Default none. */
  pluginSources?: readonly SkillSource[];
};

/** The discovery order of DESIGN.md §1, lowest priority first. */
export function defaultSkillSources(options: SkillSourcesOptions): SkillSource[] {
  const sources: SkillSource[] = [];
  if (options.builtinDir) sources.push({ dir: options.builtinDir, scope: "builtin", label: "Built-in" });
  sources.push(...(options.pluginSources ?? []));
  const [agentSkills, sharedSkills] = options.user.skillsDirs;
  const home = options.user.home;
  if (agentSkills) sources.push({ dir: agentSkills, scope: "user", label: "User", owner: home });
  if (sharedSkills) sources.push({ dir: sharedSkills, scope: "user", label: "User (.agents)", owner: home });
  if (options.projectRoot !== undefined) {
    const [projectSkills, projectShared] = projectPaths(options.projectRoot).skillsDirs;
    if (projectSkills)
      sources.push({ dir: projectSkills, scope: "project", label: "Project", owner: options.projectRoot });
    if (projectShared)
      sources.push({ dir: projectShared, scope: "project", label: "Project (.agents)", owner: options.projectRoot });
  }
  // A project at ~ makes <root>/.agents/skills the user's own dir: keep only the higher-priority entry.
  return sources.filter((source, index) => !sources.slice(index + 1).some((later) => later.dir === source.dir));
}
