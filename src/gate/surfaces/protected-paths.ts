import picomatch from "picomatch";
import { relative } from "node:path";
import { isWithin } from "../../backends/paths/real-path.js";

// Files that decide what runs or what the agent trusts: a change to them is a change to code that
// runs later (git's core.fsmonitor and hooks, the agent's own hooks and MCP servers, editor tasks,
// direnv). Changing them always asks, in every mode but bypass, and "always" is never offered.
// Patterns are relative to a root and match at any depth (a nested repository's .git counts too).

export const DEFAULT_PROTECTED_PATHS: readonly string[] = [
  ".git/**",
  ".deepagents/**",
  ".mcp.json",
  ".claude/**",
  ".vscode/**",
  ".idea/**",
  // Editors that run language servers and tasks named in project settings without asking.
  ".zed/**",
  ".helix/**",
  ".nvim.lua",
  ".nvimrc",
  ".exrc",
  ".dir-locals.el",
  ".dir-locals-2.el",
  ".envrc",
  ".npmrc",
  // Hook managers: their files decide what git runs at the next commit.
  ".husky/**",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  "lefthook.yaml",
];

export type ProtectedPaths = {
  readonly patterns: readonly string[];
  /**
   * The paths the patterns name literally, relative to a root (`.vscode/**` -> `.vscode`, `deploy/*.sh`
   * -> `deploy`, a leading `**` dropped): the bwrap sandbox binds those that exist
   * read-only. A pattern whose first segment is a glob (`*.pem`) names none and is enforced by the gate only.
   */
  readonly entries: readonly string[];
  /** The pattern protecting `realPath`, or undefined. `roots` are real paths. */
  match(realPath: string, roots: readonly string[]): string | undefined;
};

/** `patterns` replaces the built-in list when given; `extra` adds to it. */
export function createProtectedPaths(
  patterns: readonly string[] = DEFAULT_PROTECTED_PATHS,
  extra: readonly string[] = [],
): ProtectedPaths {
  patterns = [...patterns, ...extra];
  // ".git/**" also protects ".git" itself (deleting or replacing the whole folder). Case-blind:
  // on macOS and Windows ".GIT/config" is the same file as ".git/config". Compiled on first use:
  // the gate builds the default list when it loads, on the way to the editor's first session.
  let compiled: Array<{ pattern: string; matchers: picomatch.Matcher[] }> | undefined;
  const compile = () =>
    (compiled ??= patterns.map((pattern) => ({
      pattern,
      matchers: variants(pattern).map((p) => picomatch(p, { dot: true, nocase: true })),
    })));
  return {
    patterns,
    entries: literalEntries(patterns),
    match(realPath, roots) {
      const compiled = compile();
      for (const root of roots) {
        if (!isWithin(realPath, root) || realPath === root) continue;
        const segments = relative(root, realPath).split("/");
        for (let start = 0; start < segments.length; start++) {
          const tail = segments.slice(start).join("/");
          const hit = compiled.find((c) => c.matchers.some((m) => m(tail)));
          if (hit) return hit.pattern;
        }
      }
      return undefined;
    },
  };
}

function variants(pattern: string): string[] {
  return pattern.endsWith("/**") ? [pattern, pattern.slice(0, -3)] : [pattern];
}

const GLOB = /[*?[\]{}()!+@]/;

function literalEntries(patterns: readonly string[]): string[] {
  const entries = new Set<string>();
  for (const pattern of patterns) {
    const segments = pattern.split("/").filter((s) => s && s !== ".");
    while (segments[0] === "**") segments.shift();
    const literal: string[] = [];
    for (const segment of segments) {
      if (GLOB.test(segment) || segment === "..") break;
      literal.push(segment);
    }
    if (literal.length > 0) entries.add(literal.join("/"));
  }
  return [...entries];
}
