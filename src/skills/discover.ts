import { lstat, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { tryRealpath } from "./containment.js";
import type { SkillSource } from "./types.js";

/** A directory that holds SKILL.md, with the folders between the source and it (plugin namespacing). */
export type SkillCandidate = { dir: string; subfolders: string[] };

// Plugin skill trees are walked to this many levels; deeper nesting is almost surely a mistake.
const MAX_PLUGIN_DEPTH = 6;

/** Lists skill directories of one source. A missing source is normal and yields nothing. */
export async function discoverSkillDirs(source: SkillSource, diagnostics: Diagnostic[]): Promise<SkillCandidate[]> {
  const kind = await entryKind(source.dir);
  if (kind === "missing") return [];
  if (kind !== "dir") {
    diagnostics.push({ severity: "warning", source: source.dir, message: "skills source is not a directory; ignored" });
    return [];
  }
  if ((await entryKind(join(source.dir, "SKILL.md"))) === "file") return [{ dir: source.dir, subfolders: [] }];
  if (source.pluginId !== undefined) return walkPluginSource(source.dir, diagnostics);
  const found: SkillCandidate[] = [];
  for (const name of await listDirs(source.dir, diagnostics)) {
    const dir = join(source.dir, name);
    if (await lexists(join(dir, "SKILL.md"))) found.push({ dir, subfolders: [] });
  }
  return found;
}

async function walkPluginSource(root: string, diagnostics: Diagnostic[]): Promise<SkillCandidate[]> {
  const found: SkillCandidate[] = [];
  const visited = new Set<string>();
  const visit = async (dir: string, segments: string[]): Promise<void> => {
    const real = await tryRealpath(dir);
    if (real === undefined || visited.has(real)) return;
    visited.add(real);
    if (segments.length > 0 && (await lexists(join(dir, "SKILL.md")))) {
      found.push({ dir, subfolders: segments.slice(0, -1) });
      return;
    }
    if (segments.length >= MAX_PLUGIN_DEPTH) return;
    for (const name of await listDirs(dir, diagnostics)) await visit(join(dir, name), [...segments, name]);
  };
  await visit(root, []);
  return found;
}

/** Sorted names of subdirectories (following symlinks, so a linked skill dir is found and checked). */
async function listDirs(dir: string, diagnostics: Diagnostic[]): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch (error) {
    diagnostics.push({ severity: "warning", source: dir, message: `cannot list skills: ${errorMessage(error)}` });
    return [];
  }
  const names: string[] = [];
  for (const entry of entries) {
    if (entry.isDirectory()) names.push(entry.name);
    else if (entry.isSymbolicLink()) {
      const kind = await entryKind(join(dir, entry.name));
      if (kind === "dir") names.push(entry.name);
      else if (kind === "missing")
        diagnostics.push({ severity: "warning", source: join(dir, entry.name), message: "broken symlink; ignored" });
    }
  }
  return names.sort();
}

export async function entryKind(path: string): Promise<"missing" | "dir" | "file" | "other"> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? "dir" : info.isFile() ? "file" : "other";
  } catch {
    return "missing";
  }
}

/** True when something (even a dangling symlink) exists at `path`. */
async function lexists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
