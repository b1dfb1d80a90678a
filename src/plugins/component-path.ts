import { realpath } from "node:fs/promises";
import { isAbsolute, join, win32 } from "node:path";
import { relativeWithin } from "../util/path-within.js";

export type ComponentPathResult = { ok: true; path: string } | { ok: false; error: string };

export type ComponentPathOptions = {
  /** Accept "./" meaning the root itself (marketplace plugin sources). Default false. */
  allowRoot?: boolean;
};

/**
 * Resolves a plugin-relative component path. It must start with "./", contain no "..", not be
 * absolute, and its real path must stay inside the real plugin root (a symlink may not lead out).
 * A path that does not exist yet is resolved lexically under the real root.
 */
export async function resolveComponentPath(
  declaration: unknown,
  root: string,
  field: string,
  options: ComponentPathOptions = {},
): Promise<ComponentPathResult> {
  const fail = (why: string): ComponentPathResult => ({ ok: false, error: `${field}: ${why}; ignored` });
  if (typeof declaration !== "string") return fail("expected a path string");
  if (!declaration.startsWith("./")) return fail(`'${declaration}' must start with './' (relative to the plugin root)`);
  const rest = declaration.slice(2).replace(/\/+$/, "");
  if (rest === "" || rest === ".") {
    if (!options.allowRoot) return fail("'./' alone is not a component path");
  }
  const segments = rest.split(/[\\/]+/).filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) return fail(`'${declaration}' must not contain '..'`);
  if (isAbsolute(rest) || win32.isAbsolute(rest) || /^[A-Za-z]:/.test(rest))
    return fail(`'${declaration}' must stay within the plugin root`);
  let realRoot: string;
  try {
    realRoot = await realpath(root);
  } catch {
    return fail(`plugin root ${root} cannot be resolved`);
  }
  const lexical = join(realRoot, ...segments);
  const real = await realpathOfExistingPrefix(lexical);
  if (relativeWithin(realRoot, real) === undefined)
    return fail(`'${declaration}' resolves to ${real}, outside the plugin root`);
  return { ok: true, path: real };
}

/** realpath of the longest existing prefix, with the missing rest appended. */
async function realpathOfExistingPrefix(path: string): Promise<string> {
  const missing: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...missing.reverse());
    } catch {
      const parent = join(current, "..");
      if (parent === current) return path;
      missing.push(current.slice(parent.length).replace(/^[\\/]+/, ""));
      current = parent;
    }
  }
}
