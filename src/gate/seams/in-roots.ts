import {
  isWithin,
  nodeRealPathFs,
  realRoots,
  resolveRealTarget,
  type RealPathFs,
  type RealTarget,
} from "../../backends/paths/real-path.js";

// Rewind and @mentions both act on a file with no dialog, so both allow only a file whose real
// path (followed with the workspace's own file system: a remote workspace's links lead somewhere
// on the remote) stays inside the given roots and has no other name. Each words the refusal itself.

export type InRootsCheck =
  { ok: true; target: RealTarget } | { ok: false; why: "unresolved" | "outside" | "hard-linked"; target: RealTarget };

export async function checkInRoots(
  path: string,
  roots: readonly string[],
  fs: RealPathFs = nodeRealPathFs,
): Promise<InRootsCheck> {
  const [target, real] = await Promise.all([resolveRealTarget(path, fs), realRoots(roots, fs)]);
  if (target.unresolved) return { ok: false, why: "unresolved", target };
  if (!real.some((root) => isWithin(target.real, root))) return { ok: false, why: "outside", target };
  if (target.hardLinks > 1) return { ok: false, why: "hard-linked", target };
  return { ok: true, target };
}
