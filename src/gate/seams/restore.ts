import type { RealPathFs } from "../../backends/paths/real-path.js";
import { named } from "../decide/decide.js";
import { isVirtualPath } from "../call/gate.js";
import { checkInRoots } from "./in-roots.js";

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
  /** Default node:fs/promises; a remote workspace's own, so its links are followed on the remote. */
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
  const check = await checkInRoots(path, scope.roots, scope.fs);
  const { target } = check;
  if (check.ok) return { ok: true, approved: new Map([[target.requested, target.real]]) };
  if (check.why === "unresolved") return { ok: false, reason: `cannot be resolved (${target.unresolved})` };
  if (check.why === "outside")
    return { ok: false, reason: `${named(target)} is outside the session's current folders` };
  return { ok: false, reason: `${named(target)} has ${target.hardLinks} hard links` };
}
