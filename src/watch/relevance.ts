import { resolve, sep } from "node:path";
import type { WatchTarget } from "./types.js";
import { isWithin as isWithinPath } from "../util/path-within.js";

export const DEFAULT_TARGET_DEPTH = 4;

export type NormalizedTarget = { path: string; label: string; depth: number };

export function normalizeTargets(targets: readonly WatchTarget[]): NormalizedTarget[] {
  return targets.map((target) => ({
    path: resolve(target.path),
    label: target.label,
    depth: target.depth ?? DEFAULT_TARGET_DEPTH,
  }));
}

/** Strictly below `ancestor`. */
function isUnder(path: string, ancestor: string): boolean {
  return path !== ancestor && isWithinPath(path, ancestor);
}

/** Levels of `path` below `ancestor` (1 for a direct child), or -1 when it is not below it. */
function levelsBelow(path: string, ancestor: string): number {
  if (!isUnder(path, ancestor)) return -1;
  return path.slice(ancestor.length).split(sep).filter(Boolean).length;
}

/** The target itself, something inside it within its depth. */
export function isWithin(path: string, target: NormalizedTarget): boolean {
  if (path === target.path) return true;
  const levels = levelsBelow(path, target.path);
  return levels > 0 && levels <= target.depth;
}

/**
 * Watched at all: a target, inside one, or a directory on the way to one (so a target that does
 * not exist yet is noticed when it is created). Everything else under an anchor is ignored, which
 * keeps a project-root anchor from descending into the whole tree.
 */
export function isRelevant(path: string, targets: Iterable<NormalizedTarget>): boolean {
  for (const target of targets) {
    if (path === target.path || isUnder(target.path, path) || isWithin(path, target)) return true;
  }
  return false;
}

/** Targets a change at `path` affects; a removed ancestor directory affects everything below it. */
export function affectedTargets(
  eventName: string,
  path: string,
  targets: Iterable<NormalizedTarget>,
): NormalizedTarget[] {
  const out: NormalizedTarget[] = [];
  for (const target of targets) {
    if (isWithin(path, target) || (eventName === "unlinkDir" && isUnder(target.path, path))) out.push(target);
  }
  return out;
}
