import type { AnyTool } from "../tools/types.js";
import type { Diagnostic, Loaded } from "../util/diagnostics.js";

const SOURCE = "config.toml [interpreter] tools";

/**
 * Resolves `[interpreter] tools` names against the session's tools. Entries are exact tool names
 * or globs with `*` (`"github_*"` for every tool of one MCP server). Names that match nothing are
 * reported, not fatal: an MCP server may simply not be connected.
 */
export function resolveInterpreterTools(
  names: readonly string[],
  available: readonly AnyTool[],
  source = SOURCE,
): Loaded<AnyTool[]> {
  const diagnostics: Diagnostic[] = [];
  const chosen = new Map<string, AnyTool>();
  for (const entry of names) {
    if (entry === "eval" || entry === "task") {
      diagnostics.push({
        severity: "warning",
        source,
        message: `"${entry}" cannot be called from code (subagents use task())`,
      });
      continue;
    }
    const pattern = globToRegExp(entry);
    const matches = available.filter((tool) => pattern.test(tool.name) && tool.name !== "eval" && tool.name !== "task");
    if (matches.length === 0) diagnostics.push({ severity: "warning", source, message: `no tool matches "${entry}"` });
    for (const tool of matches) if (!chosen.has(tool.name)) chosen.set(tool.name, tool);
  }
  return { items: [...chosen.values()], diagnostics };
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}
