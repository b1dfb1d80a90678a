import type { ApprovedTargets } from "../../backends/paths/approved-targets.js";
import type { RealPathFs } from "../../backends/paths/real-path.js";
import { named } from "../decide/decide.js";
import { isVirtualPath } from "../call/gate.js";
import { checkInRoots } from "./in-roots.js";

// A file the user mentions (@file) is read into the prompt with no dialog. The user named a file
// in the project; when that name is a link (or a hard link) to a file outside it (a hostile
// repository's `config.txt -> ~/.ssh/id_rsa`), it is not embedded: the model can ask with read_file.
// An allowed mention carries the real path it was decided on, and the read opens exactly that
// (backends/approved-targets.ts): a link swapped in after the check (by a command still running in
// the background) is refused, not followed.

export type MentionScope = {
  roots: readonly string[];
  /** Loaded skills' own folders. */
  readRoots?: readonly string[];
  virtualPrefixes: readonly string[];
  /** Default node:fs/promises; a remote workspace's own, so its links are followed on the remote. */
  fs?: RealPathFs;
};

/** Embed it, reading only the approved real paths; or why not. */
export type MentionDecision = { ok: true; approved: ApprovedTargets } | { ok: false; reason: string };

export async function decideMention(path: string, scope: MentionScope): Promise<MentionDecision> {
  if (isVirtualPath(path, scope.virtualPrefixes)) return { ok: true, approved: new Map() };
  const check = await checkInRoots(path, [...scope.roots, ...(scope.readRoots ?? [])], scope.fs);
  const { target } = check;
  if (check.ok) return { ok: true, approved: new Map([[target.requested, target.real]]) };
  const refuse = (reason: string): MentionDecision => ({ ok: false, reason });
  if (check.why === "unresolved") return refuse(`cannot be resolved (${target.unresolved}); not embedded`);
  if (check.why === "outside")
    return refuse(`${named(target)} is outside the project; not embedded (read_file asks for it)`);
  return refuse(`${named(target)} has ${target.hardLinks} hard links; not embedded (read_file asks for it)`);
}
