import { readdir, stat } from "node:fs/promises";
import { projectPaths, type UserPaths } from "../../config/paths.js";
import { loadMemory } from "../../memory/index.js";
import { builtinSkillsDir, loadSkillSet } from "../../extensions/index.js";
import { BUILTIN_SKILL_NAMES, type SkillSource } from "../../skills/index.js";
import { loadSubagents } from "../../subagents/index.js";
import { errorMessage } from "../../util/errors.js";
import type { DoctorFile, DoctorMemoryFacts, DoctorSkillsFacts, DoctorSubagentsFacts } from "./doctor-types.js";
import { projectFileRefusal } from "../../gate/seams/project-file.js";

// Memory, skills and subagents: the Markdown a session puts in front of the model.

export async function collectMemoryFacts(user: UserPaths, projectRoot: string): Promise<DoctorMemoryFacts> {
  const loaded = await loadMemory({
    refuseProjectFile: projectFileRefusal,
    userFile: user.agentMemoryFile,
    projectRoot,
  });
  const chain = [
    { path: loaded.locations.userFile, scope: "user" as const },
    ...loaded.locations.projectFiles.map((path) => ({ path, scope: "project" as const })),
  ];
  const files = chain.map(({ path, scope }) => {
    const item = loaded.items.find((source) => source.path === path);
    if (item) return { path, scope, state: "found" as const, bytes: Buffer.byteLength(item.content) };
    const note = loaded.diagnostics.find((d) => d.source === path);
    if (!note) return { path, scope, state: "missing" as const };
    // "info" is a file read under another name (a symlink to an earlier link of the chain).
    return {
      path,
      scope,
      state: note.severity === "info" ? ("found" as const) : ("invalid" as const),
      detail: note.message,
    };
  });
  const memoriesDir = await directoryFacts(user.memoriesDir);
  return { files, memoriesDir, diagnostics: loaded.diagnostics };
}

export type SkillsFactsOptions = {
  user: UserPaths;
  projectRoot: string;
  /** config.toml `[skills].extra_allowed_dirs`. */
  extraAllowedDirs: readonly string[];
  /** Skill sources of enabled plugins. */
  pluginSources: readonly SkillSource[];
};

/**
 * The skills of a session's composition (extensions/skill-set.ts), read where a session reads them.
 * The built-in skills' files are written on session start, which doctor must not do: before the first
 * session their directory is missing and they are listed by name only.
 */
export async function collectSkillsFacts(options: SkillsFactsOptions): Promise<DoctorSkillsFacts> {
  const loaded = await loadSkillSet({
    paths: options.user,
    projectRoot: options.projectRoot,
    extraAllowedDirs: options.extraAllowedDirs,
    pluginSources: options.pluginSources,
    builtinDir: builtinSkillsDir(options.user.stateDir),
    refuseProjectFile: projectFileRefusal,
  });
  const dirs = await Promise.all(
    loaded.sources.map(async (source) => ({
      ...(await directoryFacts(source.dir)),
      scope: source.scope,
      label: source.label,
    })),
  );
  return {
    dirs,
    builtin: [...BUILTIN_SKILL_NAMES],
    skills: loaded.items.map((skill) => ({
      name: skill.name,
      scope: skill.scope,
      path: skill.path,
      overrides: skill.overrides ?? [],
    })),
    pendingSymlinks: loaded.pendingSymlinks.map((p) => ({ skill: p.skillName, link: p.linkPath, target: p.target })),
    diagnostics: [...loaded.trustDiagnostics, ...loaded.diagnostics],
  };
}

export async function collectSubagentsFacts(user: UserPaths, projectRoot: string): Promise<DoctorSubagentsFacts> {
  const projectDir = projectPaths(projectRoot).subagentsDir;
  const loaded = await loadSubagents({
    refuseProjectFile: projectFileRefusal,
    userDir: user.subagentsDir,
    projectDir,
    projectRoot,
  });
  const dirs = [
    { ...(await directoryFacts(user.subagentsDir)), scope: "user" as const },
    { ...(await directoryFacts(projectDir)), scope: "project" as const },
  ];
  const items = loaded.items.map((agent) => ({
    name: agent.name,
    source: agent.source,
    ...(agent.path !== undefined ? { path: agent.path } : {}),
    ...(agent.model !== undefined ? { model: agent.model } : {}),
  }));
  return { dirs, items, diagnostics: loaded.diagnostics };
}

/** Whether a directory exists, and how many entries it has (dot files excluded). */
export async function directoryFacts(path: string): Promise<DoctorFile & { entries?: number }> {
  try {
    const info = await stat(path);
    if (!info.isDirectory()) return { path, state: "invalid", detail: "not a directory" };
    const entries = (await readdir(path)).filter((name) => !name.startsWith(".")).length;
    return { path, state: "found", entries };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { path, state: "missing" };
    return { path, state: "invalid", detail: `cannot read: ${errorMessage(error)}` };
  }
}
