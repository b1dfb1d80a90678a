import { join } from "node:path";
import type { UserPaths } from "../config/paths.js";
import type { ProjectFileCheck } from "../util/project-file-check.js";
import {
  createSkillTrustStore,
  defaultSkillSources,
  loadSkills,
  materializeBuiltinSkills,
  type SkillSource,
} from "../skills/index.js";

// The one composition of a session's skill sources, shared by sessions and `deep-acp doctor` so that
// doctor reports exactly the skills a session loads (built-ins, plugins, user, project, in that order).

/** Where a session writes the built-in skills: one directory per state dir. */
export function builtinSkillsDir(stateDir: string): string {
  return join(stateDir, "builtin-skills");
}

/** Built-in skills are written once per state dir and process (they only change with a new version). */
const materialized = new Map<string, Promise<string>>();

/** Writes the built-in skills where a session reads them; resolves to that directory. */
export function prepareBuiltinSkills(paths: UserPaths): Promise<string> {
  let dir = materialized.get(paths.stateDir);
  if (!dir) {
    dir = materializeBuiltinSkills(builtinSkillsDir(paths.stateDir), {
      userMemoryFile: paths.agentMemoryFile,
      userSkillsDir: paths.skillsDirs[0],
      sharedUserSkillsDir: paths.skillsDirs[1],
    }).then((result) => result.dir);
    materialized.set(paths.stateDir, dir);
  }
  return dir;
}

export type SkillSetOptions = {
  paths: UserPaths;
  projectRoot: string;
  /** config.toml `[skills].extra_allowed_dirs`. */
  extraAllowedDirs: readonly string[];
  /** Each enabled plugin's skill sources (loadEnabledPlugins' `skillSources`). */
  pluginSources: readonly SkillSource[];
  /** The built-in skills' directory; omitted when it could not be written. */
  builtinDir: string | undefined;
  /** The gate's check on project skill files (gate/project-file.ts `projectFileRefusal`). */
  refuseProjectFile: ProjectFileCheck;
};

/** The skill sources a session reads, lowest priority first. */
export function sessionSkillSources(
  options: Omit<SkillSetOptions, "extraAllowedDirs" | "refuseProjectFile">,
): SkillSource[] {
  return defaultSkillSources({
    user: options.paths,
    projectRoot: options.projectRoot,
    builtinDir: options.builtinDir,
    pluginSources: options.pluginSources,
  });
}

/** The skill sources a session reads, and the skills found in them (reads only). */
export async function loadSkillSet(options: SkillSetOptions) {
  const { paths } = options;
  const sources = sessionSkillSources(options);
  const approved = await createSkillTrustStore({ stateDir: paths.stateDir }).load();
  const loaded = await loadSkills({
    sources,
    extraAllowedDirs: options.extraAllowedDirs,
    approvedTargets: approved.items,
    home: paths.home,
    refuseProjectFile: options.refuseProjectFile,
  });
  return { ...loaded, sources, trustDiagnostics: approved.diagnostics };
}
