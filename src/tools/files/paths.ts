import { homedir } from "node:os";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { isWithin } from "../../util/path-within.js";

/** Resolves a model-supplied path: `~/` is the user's home, relative paths are relative to cwd. */
export function resolveToolPath(input: string, cwd: string): string {
  const trimmed = input.trim();
  if (trimmed === "~") return homedir();
  if (trimmed.startsWith("~/")) return resolve(homedir(), trimmed.slice(2));
  return isAbsolute(trimmed) ? resolve(trimmed) : resolve(cwd, trimmed);
}

/** Project-relative form for titles; absolute when the path is outside every root. */
export function displayPath(path: string, roots: readonly string[]): string {
  for (const root of roots) {
    if (isWithin(path, root)) {
      const rel = relative(root, path);
      if (rel === "") return root === roots[0] ? "." : root;
      return root === roots[0] ? rel : `${root}${sep}${rel}`;
    }
  }
  return path;
}
