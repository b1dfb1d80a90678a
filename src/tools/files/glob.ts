import { resolve } from "node:path";
import { z } from "zod";
import { planGlob } from "../../backends/search/glob-plan.js";
import { defineTool } from "../define-tool.js";
import { truncateListOutput } from "../format.js";
import { displayPath, resolveToolPath } from "./paths.js";
import { pick } from "../hook-input.js";

const schema = z.object({
  pattern: z.string().min(1).describe("Glob pattern, e.g. **/*.ts (a bare *.ts matches only the top directory)"),
  path: z.string().optional().describe("Directory to search from (default: the working directory)"),
});

export function createGlobTool() {
  return defineTool({
    name: "glob",
    hookName: "Glob",
    hookInput: (i) => pick({ pattern: i.pattern, path: i.path }),
    offloadLargeResults: false,
    kind: "search",
    effect: "read",
    schema,
    description: "Finds files by name pattern. Returns absolute paths, sorted. Honours .gitignore and skips .git.",
    present(input, ctx) {
      const path = resolveToolPath(input.path ?? ctx.cwd, ctx.cwd);
      // A pattern with its own base ("/home/u/.ssh/*", "../../*") searches there: that is a target too.
      const plan = planGlob(input.pattern, path);
      const base = "base" in plan ? resolve(plan.base) : path;
      // A directory is no location to follow; as the only one it would replace the title in Zed.
      return {
        title: `Find ${input.pattern} in ${displayPath(base, ctx.roots)}`,
        locations: [],
        paths: base === path ? [path] : [path, base],
      };
    },
    async execute(input, ctx) {
      const path = resolveToolPath(input.path ?? ctx.cwd, ctx.cwd);
      const result = await ctx.backend.glob(input.pattern, path);
      if (result.error)
        return { content: [{ type: "text", text: `Error finding files: ${result.error}` }], isError: true };
      const files = result.files ?? [];
      if (files.length === 0)
        return { content: [{ type: "text", text: `No files found matching pattern '${input.pattern}'` }] };
      return { content: [{ type: "text", text: truncateListOutput(files.map((f) => f.path)) }] };
    },
  });
}
