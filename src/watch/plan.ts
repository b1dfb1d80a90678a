import { statSync } from "node:fs";
import { dirname, relative, sep } from "node:path";
import type { NormalizedTarget } from "./relevance.js";

// What to watch for a set of targets, so that idle costs nothing whatever the session's cwd is:
//
// - each target directory that exists (skills, subagents, plugins) is watched itself, to its depth;
// - for every target, the nearest existing directory above it is watched without recursion, and
//   only the one entry on the way to the target counts. That notices a target (or a folder on its
//   way) being created, deleted or, for files, edited.
//
// So a session in `/` or `/tmp` watches `/` for ".deepagents", "AGENTS.md" and ".mcp.json" only:
// one inotify watch whose events are a name lookup, never a re-read of a huge directory.

export type WatchPlan = {
  /** Existing target directories, watched recursively to their target's depth. */
  trees: Set<string>;
  /** Existing directory -> the names in it that matter. */
  parents: Map<string, Set<string>>;
};

export type PlanProbe = {
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
};

export const fsProbe: PlanProbe = {
  exists: (path) => statSync(path, { throwIfNoEntry: false }) !== undefined,
  isDirectory: (path) => statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false,
};

export function planWatches(targets: Iterable<NormalizedTarget>, probe: PlanProbe = fsProbe): WatchPlan {
  const plan: WatchPlan = { trees: new Set(), parents: new Map() };
  for (const target of targets) {
    if (target.depth > 0 && probe.isDirectory(target.path)) plan.trees.add(target.path);
    let dir = dirname(target.path);
    while (!probe.isDirectory(dir)) {
      const up = dirname(dir);
      if (up === dir) break;
      dir = up;
    }
    if (dir === target.path) continue;
    const name = relative(dir, target.path).split(sep)[0]!;
    let names = plan.parents.get(dir);
    if (!names) plan.parents.set(dir, (names = new Set()));
    names.add(name);
  }
  return plan;
}
