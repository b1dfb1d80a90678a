import { posix } from "node:path";
import type { HostSurfaceCache } from "../../../gate/surfaces/host-surface-cache.js";
import type { HostExecutionSurface, HostExecutionSurfaces } from "../../../gate/surfaces/host-surfaces.js";
import { relativeWithinPosix } from "../../../util/path-within.js";

// A container session's file tools work on the container's paths, but what decides what runs on the
// host is the host's: the folder git resolves through `core.hooksPath`, an include, a linked `.git`.
// Name patterns alone do not know those. So the gate gets the host's own answer (the local session's
// cache) translated: a container path under the container root is matched as the same relative
// path of the host project — in bind mode it is that file; in copy mode it is what /apply would
// write there.

export function containerSurfaceCache(
  host: HostSurfaceCache,
  hostRoot: string,
  containerRoot: string,
): HostSurfaceCache {
  const translate = (answer: HostExecutionSurfaces): HostExecutionSurfaces => {
    const toContainer = (path: string) => {
      const rel = relativeWithinPosix(answer.root, path);
      return rel === undefined ? undefined : posix.join(containerRoot, rel);
    };
    const inside = (s: HostExecutionSurface): HostExecutionSurface[] => {
      const path = toContainer(s.path);
      return path ? [{ ...s, path, ...(s.lexical ? { lexical: toContainer(s.lexical) ?? path } : {}) }] : [];
    };
    const surfaces = answer.surfaces.flatMap(inside);
    const match = (path: string) => {
      const rel = relativeWithinPosix(containerRoot, posix.resolve(path));
      if (rel === undefined) return undefined;
      const hit = answer.matchRelative(rel);
      return hit ? { ...hit, path: toContainer(hit.path) ?? posix.resolve(path) } : undefined;
    };
    return {
      root: containerRoot,
      surfaces,
      paths: surfaces.map((s) => s.path),
      problems: answer.problems,
      ...(answer.unknown !== undefined ? { unknown: answer.unknown } : {}),
      match,
      matchRelative: answer.matchRelative,
      inputs: answer.inputs,
    };
  };
  return {
    get: async () => translate(await host.get(hostRoot)),
    peek: () => {
      const answer = host.peek(hostRoot);
      return answer ? translate(answer) : undefined;
    },
    takeUnknownNotice: () => host.takeUnknownNotice(),
  };
}
