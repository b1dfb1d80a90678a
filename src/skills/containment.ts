import { realpath } from "node:fs/promises";
import { isAbsolute } from "node:path";

/** realpath, or undefined when the path (or a link on the way) does not exist. */
export async function tryRealpath(path: string): Promise<string | undefined> {
  try {
    return await realpath(path);
  } catch {
    return undefined;
  }
}

/**
 * Keeps the approved directories that still resolve to themselves. An entry whose directory (or a
 * parent) was replaced by a symlink after approval would now lead somewhere the user never saw.
 */
export async function verifiedTargets(targets: Iterable<string>): Promise<{ kept: string[]; dropped: string[] }> {
  const kept: string[] = [];
  const dropped: string[] = [];
  for (const target of targets) {
    const resolved = isAbsolute(target) ? await tryRealpath(target) : undefined;
    if (resolved === target) kept.push(target);
    else dropped.push(target);
  }
  return { kept, dropped };
}
