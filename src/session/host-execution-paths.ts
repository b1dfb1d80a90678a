import { join } from "node:path";
import type { DeepAcpConfig } from "../config/config-file.js";
import { createProtectedPaths } from "../gate/protected-paths.js";

// The one place a container workspace asks "which paths of this project decide what runs on the
// host": bind mode keeps them read-only inside the container, and /apply never folds a change to them
// into its one dialog (each asks on its own). Today the answer is the gate's protected-path list for
// the project root; a resolver that also follows what git itself resolves (the real git dir,
// core.hooksPath, ...) plugs in here, behind the same two answers, and nothing else changes.

export type HostExecutionPaths = {
  /** Paths relative to the project root that bind mode mounts read-only (those that exist). */
  readOnlyEntries: readonly string[];
  /** Why `relativePath` (a path of the project's copy) decides what runs on the host; undefined: it does not. */
  matchRelative(relativePath: string): string | undefined;
};

export async function hostExecutionPaths(config: DeepAcpConfig, projectRoot: string): Promise<HostExecutionPaths> {
  const protectedPaths = createProtectedPaths(config.protected.paths, config.protected.extra_paths);
  return {
    readOnlyEntries: protectedPaths.entries,
    matchRelative: (relativePath) => protectedPaths.match(join(projectRoot, relativePath), [projectRoot]),
  };
}
