import { join, relative } from "node:path";
import { createHeldGuard, type HeldGuard } from "../../../backends/paths/held-guard.js";
import { anchorFolders, type HeldSurface } from "../../../backends/paths/held-record.js";
import type { HostSurfaceCache } from "../../../gate/surfaces/host-surface-cache.js";
import type { ProtectedPaths } from "../../../gate/surfaces/protected-paths.js";
import { isWithin } from "../../../util/path-within.js";

// Bind mode mounts the host project into the container, so a command there writes the host's disk
// directly: the read-only binds of the surfaces protect paths, not what the host runs next (a parent
// renamed, a linked `.git` replaced, a missing hooks folder created). Here the host side holds them
// (backends/paths/held-*.ts): each container command, and the dev container's postCreateCommand, is
// wrapped in a record taken on the host before it and a repair after it; and the folders on the way
// to the surfaces are bound over themselves when the container is made, so they cannot be renamed.

export type BindHold = {
  guard: HeldGuard;
  /** Folders (relative to the root) on the way to the surfaces: bound over themselves, writable. */
  anchorEntries: readonly string[];
};

/**
 * A folder holding other surfaces (git's own folder: config, hooks) is held by identity, its files one
 * by one; a leaf folder (a hooks folder, `.vscode`) with what is inside, since the container's binds
 * were fixed when it was made and a surface found later (`git config core.hooksPath scripts` on the
 * host during the session) has no read-only bind.
 */
const holdsOthers = (folder: string, paths: readonly string[]) =>
  paths.some((path) => path !== folder && isWithin(path, folder));

/** What the host's git and the protected list resolve for `root`, held around every container command. */
export async function bindModeHold(
  cache: HostSurfaceCache,
  protectedPaths: ProtectedPaths,
  root: string,
): Promise<BindHold> {
  const source = async () => {
    const answer = await cache.get(root);
    const surfaces: HeldSurface[] = [
      // The entries as written (a link there is held as the link), then what they and git resolve to.
      ...[".git", ...protectedPaths.entries].map((entry) => ({
        path: join(answer.root, entry),
        reason: `a protected path (${entry})`,
      })),
      ...answer.surfaces.flatMap((s) => [
        { path: s.path, reason: s.reason, contents: s.folder && s.exists && !holdsOthers(s.path, answer.paths) },
        ...(s.lexical ? [{ path: s.lexical, reason: s.reason }] : []),
      ]),
    ];
    return { roots: [answer.root], surfaces };
  };
  const answer = await cache.get(root);
  const existing = answer.surfaces.filter((s) => s.exists).map((s) => s.path);
  return {
    guard: createHeldGuard(source),
    anchorEntries: anchorFolders([answer.root], existing).map((path) => relative(answer.root, path)),
  };
}
