import { isAbsolute, relative, sep } from "node:path";

// The one path-containment test. It compares paths as strings, so both must be absolute and
// normalized the same way (both real, or both as given); a folder named `..x` is inside its parent.

/** Whether `path` is `root` or below it. */
export function isWithin(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
}

export function isWithinAny(path: string, roots: readonly string[]): boolean {
  return roots.some((root) => isWithin(path, root));
}

/** `path` relative to `root` ("" for the root itself), or undefined when it is outside. */
export function relativeWithin(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  return rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel) ? undefined : rel;
}
