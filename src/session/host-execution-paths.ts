import type { DeepAcpConfig } from "../config/config-file.js";
import { createProtectedPaths, type ProtectedPaths } from "../gate/protected-paths.js";

// The one place a container workspace asks "which paths of this project decide what runs on the
// host": bind mode keeps them read-only inside the container, and /apply never folds a change to them
// into its one dialog (each asks on its own). Today that is the gate's protected-path list for the
// project root; when the gate resolves the set from what git itself resolves (the real git dir,
// core.hooksPath, ...), this adapter is where it plugs in.
export function hostExecutionPaths(config: DeepAcpConfig, _projectRoot: string): ProtectedPaths {
  return createProtectedPaths(config.protected.paths, config.protected.extra_paths);
}
