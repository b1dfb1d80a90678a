import { isWithin, nodeRealPathFs, realRoots, type RealPathFs } from "../backends/real-path.js";
import { named } from "./decide.js";
import { isVirtualPath, resolveTargets } from "./gate.js";

// Rewind puts back files the agent changed. It runs without a dialog, so it may only touch what
// the session may change without one: real paths inside the session's current roots (a session
// loaded with another cwd must not rewrite the old project), the session's own routes, never a
// file shared by every project (/memories/) and never a hard-linked file (the other name would
// change too). Anything else is reported as not restored.

export type RestoreScope = {
  roots: readonly string[];
  virtualPrefixes: readonly string[];
  /** Default ["/memories/"]. */
  sharedPrefixes?: readonly string[];
  /** False for a remote workspace (paths decided on as given). */
  localPaths?: boolean;
  fs?: RealPathFs;
};

export type RestoreDecision = { ok: true; approved: Map<string, string> } | { ok: false; reason: string };

export async function decideRestore(path: string, scope: RestoreScope): Promise<RestoreDecision> {
  const shared = scope.sharedPrefixes ?? ["/memories/"];
  if (isVirtualPath(path, scope.virtualPrefixes)) {
    return isVirtualPath(path, shared)
      ? { ok: false, reason: "shared by every project; not restored without asking" }
      : { ok: true, approved: new Map() };
  }
  const local = scope.localPaths !== false;
  const fs = scope.fs ?? nodeRealPathFs;
  const [target] = await resolveTargets([path], [], [], local ? fs : undefined);
  const roots = local ? await realRoots(scope.roots, fs) : scope.roots;
  if (!target || target.unresolved)
    return { ok: false, reason: `cannot be resolved (${target?.unresolved ?? "unknown"})` };
  if (!roots.some((root) => isWithin(target.real, root)))
    return { ok: false, reason: `${named(target)} is outside the session's current folders` };
  if (target.hardLinks > 1) return { ok: false, reason: `${named(target)} has ${target.hardLinks} hard links` };
  return { ok: true, approved: new Map([[target.requested, target.real]]) };
}
