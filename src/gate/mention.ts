import type { RealPathFs } from "../backends/real-path.js";
import { named } from "./decide.js";
import { isVirtualPath } from "./gate.js";
import { checkInRoots } from "./in-roots.js";

// A file the user mentions (@file) is read into the prompt with no dialog. The user named a file
// in the project; when that name is a link (or a hard link) to a file outside it (a hostile
// repository's `config.txt -> ~/.ssh/id_rsa`), it is not embedded: the model can ask with read_file.

export type MentionScope = {
  roots: readonly string[];
  /** Loaded skills' own folders. */
  readRoots?: readonly string[];
  virtualPrefixes: readonly string[];
  /** Default node:fs/promises; a remote workspace's own, so its links are followed on the remote. */
  fs?: RealPathFs;
};

/** Undefined when the mentioned file may be embedded, else why not. */
export async function decideMention(path: string, scope: MentionScope): Promise<string | undefined> {
  if (isVirtualPath(path, scope.virtualPrefixes)) return undefined;
  const check = await checkInRoots(path, [...scope.roots, ...(scope.readRoots ?? [])], scope.fs);
  if (check.ok) return undefined;
  const { target } = check;
  if (check.why === "unresolved") return `cannot be resolved (${target.unresolved}); not embedded`;
  if (check.why === "outside") return `${named(target)} is outside the project; not embedded (read_file asks for it)`;
  return `${named(target)} has ${target.hardLinks} hard links; not embedded (read_file asks for it)`;
}
