import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import type { ProjectFileCheck } from "../util/project-file-check.js";
import { errorMessage } from "../util/errors.js";
import { tryRealpath, verifiedTargets } from "./containment.js";
import { isWithin, isWithinAny } from "../util/path-within.js";
import { discoverSkillDirs, type SkillCandidate } from "./discover.js";
import type { PendingSymlink, Skill, SkillSource, SkillsLoad } from "./types.js";
import { MAX_SKILL_FILE_BYTES, parseSkillFile } from "./validate.js";

export type LoadSkillsOptions = {
  /** Lowest priority first: builtin, plugins, user, project. */
  sources: readonly SkillSource[];
  /** config.toml `[skills].extra_allowed_dirs`: symlink targets allowed outside the sources. Default none. */
  extraAllowedDirs?: readonly string[];
  /** Canonical directories the user approved (skill trust store). Re-verified here. Default none. */
  approvedTargets?: Iterable<string>;
  /** Expands a leading `~` in extra dirs. Default os.homedir(). */
  home?: string;
  /**
   * The gate's verdict on a project skill's SKILL.md (gate/project-file.ts `projectFileRefusal`),
   * handed in by the composition root. Without it project skills are not loaded.
   */
  refuseProjectFile?: ProjectFileCheck;
};

/**
 * Discovers, validates and merges skills. A skill whose directory or SKILL.md resolves outside
 * every allowed root is refused and listed in `pendingSymlinks` so the user can be asked.
 * Never throws on bad content: every problem is a diagnostic.
 */
export async function loadSkills(options: LoadSkillsOptions): Promise<SkillsLoad> {
  const diagnostics: Diagnostic[] = [];
  const pending: PendingSymlink[] = [];
  const { roots, sources } = await allowedRoots(options, diagnostics, pending);
  const byName = new Map<string, Skill>();
  const readable = new Map<string, string[]>();
  for (const source of sources) {
    if (source.scope === "project" && !options.refuseProjectFile) {
      diagnostics.push({
        severity: "error",
        source: source.dir,
        message: "project skills skipped: loaded without the gate's project-file check",
      });
      continue;
    }
    const seenInSource = new Set<string>();
    for (const candidate of await discoverSkillDirs(source, diagnostics)) {
      const loaded = await loadCandidate(source, candidate, roots, diagnostics, pending, options.refuseProjectFile);
      if (!loaded) continue;
      const { skill, realDirs } = loaded;
      readable.set(skill.path, realDirs);
      if (seenInSource.has(skill.name)) {
        diagnostics.push({
          severity: "warning",
          source: skill.path,
          message: `another skill in ${source.dir} is also named '${skill.name}'; this one wins`,
        });
      }
      seenInSource.add(skill.name);
      const previous = byName.get(skill.name);
      if (previous) {
        skill.overrides = [...(previous.overrides ?? []), previous.path];
        byName.delete(skill.name);
      }
      byName.set(skill.name, skill);
    }
  }
  const items = [...byName.values()];
  // Only the loaded skills' own folders become readable, never a whole source (`/`, `$HOME`).
  const readRoots = [...new Set(items.flatMap((skill) => readable.get(skill.path) ?? []))];
  return { items, diagnostics, pendingSymlinks: dedupePending(pending), roots: readRoots };
}

/**
 * The directories skills may resolve into (sources that stay inside their owner, extra dirs,
 * approved targets) and the sources to load. A source whose real path leaves its owner is refused
 * and listed as pending, unless its target is an approved or extra directory.
 */
async function allowedRoots(
  options: LoadSkillsOptions,
  diagnostics: Diagnostic[],
  pending: PendingSymlink[],
): Promise<{ roots: string[]; sources: SkillSource[] }> {
  const trusted = await trustedDirs(options, diagnostics);
  const roots = new Set<string>(trusted);
  const sources: SkillSource[] = [];
  for (const source of options.sources) {
    const real = await tryRealpath(source.dir);
    if (!real) {
      sources.push(source);
      continue;
    }
    const owner = source.owner === undefined ? undefined : ((await tryRealpath(source.owner)) ?? resolve(source.owner));
    if (owner !== undefined && !isWithin(real, owner) && !isWithinAny(real, trusted)) {
      pending.push({ skillName: `skills folder ${source.dir}`, kind: "folder", linkPath: source.dir, target: real });
      diagnostics.push({
        severity: "warning",
        source: source.dir,
        message: `skills folder refused: it resolves to ${real}, outside ${owner}. Approve it when asked, or add the directory to [skills].extra_allowed_dirs in config.toml`,
      });
      continue;
    }
    roots.add(real);
    sources.push(source);
  }
  return { roots: [...roots], sources };
}

/** `[skills].extra_allowed_dirs` and the approved targets that still resolve to themselves. */
async function trustedDirs(options: LoadSkillsOptions, diagnostics: Diagnostic[]): Promise<string[]> {
  const roots = new Set<string>();
  const home = options.home ?? homedir();
  for (const raw of options.extraAllowedDirs ?? []) {
    const expanded = raw === "~" ? home : raw.startsWith("~/") ? join(home, raw.slice(2)) : raw;
    if (!isAbsolute(expanded)) {
      diagnostics.push({
        severity: "warning",
        source: "config.toml [skills].extra_allowed_dirs",
        message: `'${raw}' is not an absolute path; ignored`,
      });
      continue;
    }
    const real = await tryRealpath(resolve(expanded));
    if (real) roots.add(real);
    else
      diagnostics.push({
        severity: "info",
        source: "config.toml [skills].extra_allowed_dirs",
        message: `'${raw}' does not exist`,
      });
  }
  const { kept, dropped } = await verifiedTargets(options.approvedTargets ?? []);
  for (const target of kept) roots.add(target);
  for (const target of dropped) {
    diagnostics.push({
      severity: "warning",
      source: target,
      message:
        "approved skill directory no longer resolves to itself (moved, deleted or replaced by a symlink); approval ignored",
    });
  }
  return [...roots];
}

async function loadCandidate(
  source: SkillSource,
  candidate: SkillCandidate,
  roots: readonly string[],
  diagnostics: Diagnostic[],
  pending: PendingSymlink[],
  refuseProjectFile: ProjectFileCheck | undefined,
): Promise<{ skill: Skill; realDirs: string[] } | undefined> {
  const dir = candidate.dir;
  const path = join(dir, "SKILL.md");
  const displayName = qualify(source, candidate, basename(dir));
  const realDir = await tryRealpath(dir);
  const realFile = await tryRealpath(path);
  if (!realDir || !realFile) {
    diagnostics.push({
      severity: "error",
      source: path,
      message: "skill skipped: SKILL.md is a broken symlink or cannot be resolved",
    });
    return undefined;
  }
  const escape = !isWithinAny(realDir, roots)
    ? { linkPath: dir, target: realDir }
    : !isWithinAny(realFile, roots)
      ? { linkPath: path, target: dirname(realFile) }
      : undefined;
  if (escape) {
    pending.push({ skillName: displayName, ...escape });
    diagnostics.push({
      severity: "warning",
      source: escape.linkPath,
      message: `skill '${displayName}' refused: it resolves to ${escape.target}, outside the skill directories. Approve it when asked, or add the directory to [skills].extra_allowed_dirs in config.toml`,
    });
    return undefined;
  }
  let content: string;
  try {
    const info = await stat(realFile);
    if (!info.isFile()) throw new Error("not a regular file");
    const refused = projectFileRefusal(source.scope, realFile, info.nlink, roots, refuseProjectFile);
    if (refused) {
      diagnostics.push({ severity: "warning", source: path, message: `skill skipped: SKILL.md ${refused}` });
      return undefined;
    }
    if (info.size > MAX_SKILL_FILE_BYTES) {
      diagnostics.push({
        severity: "error",
        source: path,
        message: `skill skipped: SKILL.md is larger than 10 MiB (${info.size} bytes)`,
      });
      return undefined;
    }
    content = await readFile(realFile, "utf8");
  } catch (error) {
    diagnostics.push({
      severity: "error",
      source: path,
      message: `skill skipped: cannot read SKILL.md: ${errorMessage(error)}`,
    });
    return undefined;
  }
  const parsed = parseSkillFile(content, path, basename(dir));
  diagnostics.push(...parsed.diagnostics);
  if (!parsed.metadata) return undefined;
  const skill: Skill = {
    ...parsed.metadata,
    name: qualify(source, candidate, parsed.metadata.name),
    path,
    dir,
    scope: source.scope,
    source: source.label,
    sourceDir: source.dir,
  };
  if (source.pluginId !== undefined) skill.pluginId = source.pluginId;
  return { skill, realDirs: [...new Set([realDir, dirname(realFile)])] };
}

/** Plugin skills live under `plugin@marketplace:<subfolders...>:<name>`, lowercased, so they never collide. */
function qualify(source: SkillSource, candidate: SkillCandidate, name: string): string {
  if (source.pluginId === undefined) return name;
  return [source.pluginId, ...candidate.subfolders, name].join(":").toLowerCase();
}

function dedupePending(pending: PendingSymlink[]): PendingSymlink[] {
  const seen = new Set<string>();
  return pending.filter((entry) => {
    const key = `${entry.linkPath}\0${entry.target}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export type SkillContent = { ok: true; content: string } | { ok: false; error: string };

/**
 * Reads a skill's SKILL.md for `/skill:<name>`, re-checking containment: a link may have been
 * re-pointed since discovery.
 */
export async function readSkillContent(
  skill: Pick<Skill, "path" | "name" | "scope">,
  roots: readonly string[],
  refuseProjectFile?: ProjectFileCheck,
): Promise<SkillContent> {
  const real = await tryRealpath(skill.path);
  if (!real) return { ok: false, error: `skill '${skill.name}': ${skill.path} no longer exists` };
  if (!isWithinAny(real, roots)) {
    return {
      ok: false,
      error: `skill '${skill.name}': ${skill.path} now resolves to ${real}, outside the skill directories; run /reload to review it`,
    };
  }
  try {
    const info = await stat(real);
    const refused = projectFileRefusal(skill.scope, real, info.nlink, roots, refuseProjectFile);
    if (refused) return { ok: false, error: `skill '${skill.name}': ${skill.path} ${refused}` };
    if (info.size > MAX_SKILL_FILE_BYTES)
      return { ok: false, error: `skill '${skill.name}': SKILL.md is larger than 10 MiB` };
    return { ok: true, content: await readFile(real, "utf8") };
  } catch (error) {
    return { ok: false, error: `skill '${skill.name}': cannot read ${skill.path}: ${errorMessage(error)}` };
  }
}

/**
 * The gate's verdict on a project skill's file (a hard link is another name for a file that may live
 * outside the project). Containment is already decided on the skill roots, which may include folders
 * the user approved outside the project, so the file is checked against the root that holds it.
 */
function projectFileRefusal(
  scope: Skill["scope"],
  real: string,
  hardLinks: number,
  roots: readonly string[],
  check: ProjectFileCheck | undefined,
): string | undefined {
  if (scope !== "project") return undefined;
  if (!check) return "was loaded without the gate's project-file check";
  const projectRoot = roots.find((root) => isWithin(real, root));
  if (!projectRoot) return `resolves to ${real}, outside the skill directories`;
  return check({ real, projectRoot, hardLinks });
}
