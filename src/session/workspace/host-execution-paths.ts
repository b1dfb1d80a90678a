import type { DeepAcpConfig } from "../../config/config-file.js";
import { resolveHostExecutionSurfaces } from "../../gate/surfaces/host-surfaces.js";
import { createProtectedPaths } from "../../gate/surfaces/protected-paths.js";
import { relativeWithin } from "../../util/path-within.js";

// The one place a container workspace asks "which paths of this project decide what runs on the
// host": bind mode keeps them read-only inside the container, and /apply never folds a change to them
// into its one dialog (each asks on its own). The answer is the gate's own (gate/host-surfaces.ts):
// what git resolves for the host project (its real git dir however `.git` leads there,
// core.hooksPath, config files and their includes) plus the protected entries, so the sandbox, the
// gate and the container agree on one set.

export type HostExecutionPaths = {
  /** Paths relative to the project root that bind mode mounts read-only (those that exist inside the project). */
  readOnlyEntries: readonly string[];
  /** Why `relativePath` (a path of the project's copy) decides what runs on the host; undefined: it does not. */
  matchRelative(relativePath: string): string | undefined;
  /**
   * Why git's answer is incomplete, if it is: the entries then hold the whole git folder and every
   * path git's config names, and matchRelative answers for every hooks-like path too.
   */
  unknown?: string;
};

export async function hostExecutionPaths(config: DeepAcpConfig, projectRoot: string): Promise<HostExecutionPaths> {
  const protectedPaths = createProtectedPaths(config.protected.paths, config.protected.extra_paths);
  const surfaces = await resolveHostExecutionSurfaces(projectRoot, { protectedPaths });
  const insideRoot = (path: string) => {
    const rel = relativeWithin(surfaces.root, path);
    return rel === "" ? undefined : rel;
  };
  const readOnlyEntries = [
    ...new Set(
      surfaces.surfaces
        .filter((surface) => surface.exists)
        .map((surface) => insideRoot(surface.path))
        .filter((rel): rel is string => rel !== undefined),
    ),
  ];
  return {
    readOnlyEntries,
    matchRelative: (relativePath) => surfaces.matchRelative(relativePath)?.reason,
    ...(surfaces.unknown ? { unknown: surfaces.unknown } : {}),
  };
}
