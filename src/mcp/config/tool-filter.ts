import { fnmatch, isGlob } from "./fnmatch.js";
import type { McpToolFilterSpec } from "./types.js";

export type ToolFilterOutcome = {
  /** Original (bare) tool names that survive the filter, in server order. */
  kept: string[];
  /** Bare names the filter removed. */
  removed: string[];
  /** Filter entries that matched no tool (probably a typo or a renamed tool). */
  unmatched: string[];
};

/**
 * Applies `allowedTools` / `disabledTools`. Each entry is tried against the bare tool name and the
 * server-prefixed name (`<server>_<tool>`), literally unless it contains `*`, `?` or `[`.
 */
export function applyToolFilter(
  server: string,
  tools: readonly string[],
  filter: McpToolFilterSpec | undefined,
): ToolFilterOutcome {
  if (!filter) return { kept: [...tools], removed: [], unmatched: [] };
  const used = new Set<string>();
  const matches = (tool: string) => {
    let hit = false;
    for (const pattern of filter.patterns) {
      if (matchesEntry(pattern, tool, `${server}_${tool}`)) {
        used.add(pattern);
        hit = true;
      }
    }
    return hit;
  };
  const kept: string[] = [];
  const removed: string[] = [];
  for (const tool of tools) {
    const hit = matches(tool);
    const keep = filter.mode === "allow" ? hit : !hit;
    (keep ? kept : removed).push(tool);
  }
  return { kept, removed, unmatched: filter.patterns.filter((pattern) => !used.has(pattern)) };
}

function matchesEntry(pattern: string, bare: string, prefixed: string): boolean {
  if (!isGlob(pattern)) return pattern === bare || pattern === prefixed;
  return fnmatch(bare, pattern) || fnmatch(prefixed, pattern);
}
