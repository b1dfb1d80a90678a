import { defineTool } from "../define-tool.js";
import { filePathField, withFilePathAlias } from "./file-input.js";
import { displayPath, resolveToolPath } from "./paths.js";
import { pick } from "../hook-input.js";

const schema = withFilePathAlias({ file_path: filePathField });

export function createDeleteTool() {
  return defineTool({
    name: "delete",
    hookName: "Delete",
    hookInput: (i) => pick({ file_path: i.file_path }),
    offloadLargeResults: false,
    kind: "delete",
    effect: "delete",
    schema,
    description: "Deletes a file, or a directory with everything in it.",
    present(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      return { title: displayPath(path, ctx.roots), locations: [{ path }], paths: [path] };
    },
    async execute(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      if (!ctx.backend.delete)
        return { content: [{ type: "text", text: "Error: this backend cannot delete files" }], isError: true };
      const result = await ctx.backend.delete(path);
      if (result.error) return { content: [{ type: "text", text: `Error: ${result.error}` }], isError: true };
      return { content: [{ type: "text", text: `Deleted ${path}` }] };
    },
  });
}
