import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { truncateListOutput } from "../format.js";
import { displayPath, resolveToolPath } from "./paths.js";
import { pick } from "../hook-input.js";

const schema = z.object({
  path: z.string().optional().describe("Absolute directory path (default: the working directory)"),
});

export function createLsTool() {
  return defineTool({
    name: "ls",
    hookName: "LS",
    hookInput: (i) => pick({ path: i.path }),
    offloadLargeResults: false,
    kind: "read",
    effect: "read",
    schema,
    description: "Lists the files and directories directly inside a directory, with sizes.",
    present(input, ctx) {
      const path = resolveToolPath(input.path ?? ctx.cwd, ctx.cwd);
      // A directory is no location to follow; as the only one it would replace the title in Zed.
      return { title: `List ${displayPath(path, ctx.roots)}`, locations: [], paths: [path] };
    },
    async execute(input, ctx) {
      const path = resolveToolPath(input.path ?? ctx.cwd, ctx.cwd);
      const result = await ctx.backend.ls(path);
      if (result.error)
        return { content: [{ type: "text", text: `Error listing files: ${result.error}` }], isError: true };
      const files = result.files ?? [];
      if (files.length === 0) return { content: [{ type: "text", text: `No files found in ${path}` }] };
      const lines = files.map((f) =>
        f.isDir ? `${f.path} (directory)` : f.size ? `${f.path} (${f.size} bytes)` : f.path,
      );
      return { content: [{ type: "text", text: truncateListOutput(lines) }] };
    },
  });
}
