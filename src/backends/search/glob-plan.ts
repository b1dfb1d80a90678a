import picomatch from "picomatch";

// Turns a glob into a directory to walk plus the pattern left to match under it, so
// `src/components/**/*.tsx` walks only src/components and `*.py` reads only one directory.

const GLOB_CHARS = /[*?[\]{}()]|^!/;

export type GlobPlan = {
  /** Caller-facing directory to walk (absolute for absolute patterns, else under the given base). */
  base: string;
  /** Pattern matched against paths relative to `base`. */
  rest: string;
  /** Walk depth (1 = direct children); undefined when the pattern has `**`. */
  maxDepth: number | undefined;
};

export function hasGlobChars(segment: string): boolean {
  return GLOB_CHARS.test(segment);
}

export function planGlob(pattern: string, basePath: string): GlobPlan | { error: string } {
  let text = pattern.trim();
  while (text.startsWith("./")) text = text.slice(2);
  const absolute = text.startsWith("/");
  const segments = text.split("/").filter((s) => s.length > 0 && s !== ".");
  if (segments.length === 0) return { error: `invalid glob pattern '${pattern}'` };
  let first = 0;
  while (first < segments.length - 1 && !hasGlobChars(segments[first]!)) first++;
  const staticPart = segments.slice(0, first);
  const restPart = segments.slice(first);
  const root = absolute ? "/" : basePath;
  const base = staticPart.length === 0 ? root : `${root.replace(/\/+$/, "")}/${staticPart.join("/")}`;
  const maxDepth = restPart.some((s) => s.includes("**")) ? undefined : restPart.length;
  return { base, rest: restPart.join("/"), maxDepth };
}

/** Matcher for paths relative to the glob base (dotfiles included). A bare regex: it runs once per file. */
export function relativeMatcher(rest: string): (relativePath: string) => boolean {
  if (rest === "**" || rest === "**/*") return () => true;
  const regex = picomatch.makeRe(rest, { dot: true });
  return (path) => regex.test(path);
}

/** grep's `glob` filter: a file-name pattern (`*.py`), or a relative path pattern when it has a "/". */
export function fileFilter(glob: string | null | undefined): ((relativePath: string) => boolean) | undefined {
  if (!glob) return undefined;
  const regex = picomatch.makeRe(glob, { dot: true });
  if (glob.includes("/")) return (path) => regex.test(path);
  return (path) => regex.test(path.slice(path.lastIndexOf("/") + 1));
}
