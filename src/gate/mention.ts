import { isWithin, realRoots, resolveRealTarget } from "../backends/real-path.js";
import { named } from "./decide.js";
import { isVirtualPath } from "./gate.js";

// A file the user mentions (@file) is read into the prompt with no dialog. The user named a file
// in the project; when that name is a link (or a hard link) to a file outside it (a hostile
// repository's `config.txt -> ~/.ssh/id_rsa`), it is not embedded: the model can ask with read_file.

export type MentionScope = {
  roots: readonly string[];
  /** Loaded skills' own folders. */
  readRoots?: readonly string[];
  virtualPrefixes: readonly string[];
  /** False for a remote workspace (paths name files on another machine). */
  localPaths?: boolean;
};

/** Undefined when the mentioned file may be embedded, else why not. */
export async function decideMention(path: string, scope: MentionScope): Promise<string | undefined> {
  if (scope.localPaths === false || isVirtualPath(path, scope.virtualPrefixes)) return undefined;
  const target = await resolveRealTarget(path);
  if (target.unresolved) return `cannot be resolved (${target.unresolved}); not embedded`;
  const roots = await realRoots([...scope.roots, ...(scope.readRoots ?? [])]);
  if (!roots.some((root) => isWithin(target.real, root)))
    return `${named(target)} is outside the project; not embedded (read_file asks for it)`;
  if (target.hardLinks > 1)
    return `${named(target)} has ${target.hardLinks} hard links; not embedded (read_file asks for it)`;
  return undefined;
}
