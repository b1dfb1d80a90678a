import { realpathSync } from "node:fs";
import { isAbsolute, posix, relative, resolve, sep } from "node:path";

// The one path-containment test. It compares paths as strings, so both must be absolute and
// normalized the same way (both real, or both as given); a folder named `..x` is inside its parent.
// The native forms are for host paths; the posix forms for container paths and "/"-joined keys
// (rule paths, virtual paths), which stay "/"-separated whatever the host is.

/** Whether `path` is `root` or below it. */
export function isWithin(path: string, root: string): boolean {
  return withinBy(sep, path, root);
}

export function isWithinAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isWithin(path, root));
}

/** Whether `path` is strictly below `root` (not `root` itself). */
export function isBelow(path: string, root: string): boolean {
  return path !== root && isWithin(path, root);
}

/** `path` relative to `root` ("" for the root itself), or undefined when it is outside. */
export function relativeWithin(root: string, path: string): string | undefined {
  return insideOrUndefined(relative(root, path), sep, isAbsolute);
}

/** {@link isWithin} for "/"-separated paths. */
export function isWithinPosix(path: string, root: string): boolean {
  return withinBy("/", path, root);
}

/** {@link isBelow} for "/"-separated paths. */
export function isBelowPosix(path: string, root: string): boolean {
  return path !== root && isWithinPosix(path, root);
}

/** {@link relativeWithin} for "/"-separated paths. */
export function relativeWithinPosix(root: string, path: string): string | undefined {
  return insideOrUndefined(posix.relative(root, path), "/", posix.isAbsolute);
}

function withinBy(separator: string, path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(separator) ? root : root + separator);
}

function insideOrUndefined(rel: string, separator: string, absolute: (path: string) => boolean): string | undefined {
  return rel === ".." || rel.startsWith(`..${separator}`) || absolute(rel) ? undefined : rel;
}

/**
 * A project root as remembered decisions are keyed by: absolute, symlinks resolved (two spellings
 * of one project share their entries); as given, made absolute, when it cannot be resolved.
 */
export function canonicalRoot(path: string): string {
  const absolute = resolve(path);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}
