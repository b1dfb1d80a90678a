import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { truncateListOutput } from "../format.js";
import { displayPath, resolveToolPath } from "./paths.js";
import type { GrepMatch } from "../../backends/protocol.js";
import { escapeRegex, pick } from "../hook-input.js";

export const DEFAULT_GREP_MAX_COUNT = 1000;

const schema = z.object({
  pattern: z.string().min(1).describe("Literal text to search for (not a regular expression)"),
  path: z.string().optional().describe("File or directory to search (default: the working directory)"),
  glob: z.string().nullish().describe("Only search files whose name matches, e.g. *.py"),
  output_mode: z.enum(["files_with_matches", "content", "count"]).optional().describe("default: content"),
  max_count: z
    .number()
    .int()
    .positive()
    .nullish()
    .describe(`Stop after this many matches (default ${DEFAULT_GREP_MAX_COUNT})`),
});

export function createGrepTool() {
  return defineTool({
    name: "grep",
    hookName: "Grep",
    hookInput: (i) =>
      pick({
        pattern: escapeRegex(i.pattern),
        path: i.path,
        glob: i.glob ?? undefined,
        output_mode: i.output_mode,
        head_limit: i.max_count ?? undefined,
      }),
    offloadLargeResults: false,
    kind: "search",
    effect: "read",
    schema,
    description: [
      "Searches file contents for a literal string (ripgrep when available; honours .gitignore).",
      "output_mode: content (matching lines with numbers, the default), files_with_matches, or count.",
    ].join("\n"),
    present(input, ctx) {
      const path = resolveToolPath(input.path ?? ctx.cwd, ctx.cwd);
      // A directory is no location to follow; as the only one it would replace the title in Zed.
      return { title: `grep "${input.pattern}" ${displayPath(path, ctx.roots)}`, locations: [], paths: [path] };
    },
    async execute(input, ctx) {
      const path = resolveToolPath(input.path ?? ctx.cwd, ctx.cwd);
      const maxCount = input.max_count ?? DEFAULT_GREP_MAX_COUNT;
      const result = await ctx.backend.grep(input.pattern, path, input.glob ?? null, maxCount);
      if (result.error) return { content: [{ type: "text", text: `Error: ${result.error}` }], isError: true };
      const matches = result.matches ?? [];
      if (matches.length === 0)
        return { content: [{ type: "text", text: `No matches found for pattern '${input.pattern}'` }] };
      let text = truncateListOutput(formatGrep(matches, input.output_mode ?? "content"));
      if (result.truncated || matches.length >= maxCount) {
        text += `\n\nNote: the search stopped early because it hit the maximum match count (${maxCount}). Narrow the path or glob, or raise max_count.`;
      }
      return { content: [{ type: "text", text }] };
    },
  });
}

function formatGrep(matches: readonly GrepMatch[], mode: "files_with_matches" | "content" | "count"): string[] {
  const byFile = new Map<string, GrepMatch[]>();
  for (const match of matches) {
    const list = byFile.get(match.path);
    if (list) list.push(match);
    else byFile.set(match.path, [match]);
  }
  const files = [...byFile.keys()].sort();
  if (mode === "files_with_matches") return files;
  if (mode === "count") return files.map((file) => `${file}: ${byFile.get(file)!.length}`);
  return files.flatMap((file) => [`${file}:`, ...byFile.get(file)!.map((m) => `  ${m.line}: ${m.text}`)]);
}
