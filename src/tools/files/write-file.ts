import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { filePathField, withFilePathAlias } from "./file-input.js";
import { displayPath, resolveToolPath } from "./paths.js";
import { currentText } from "./current-text.js";
import { pick } from "../hook-input.js";

const schema = withFilePathAlias({
  file_path: filePathField,
  content: z.string().describe("The full new content of the file"),
});

export function createWriteFileTool() {
  return defineTool({
    name: "write_file",
    hookName: "Write",
    hookInput: (i) => pick({ file_path: i.file_path, content: i.content }),
    offloadLargeResults: false,
    kind: "edit",
    effect: "edit",
    schema,
    description: [
      "Creates a file or replaces its whole content. Parent directories are created.",
      "Prefer edit_file for changes to an existing file; use write_file for new files or full rewrites.",
    ].join("\n"),
    present(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      return { title: displayPath(path, ctx.roots), locations: [{ path }], paths: [path] };
    },
    async preview(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      return [{ type: "diff", path, oldText: await currentText(ctx.backend, path), newText: input.content }];
    },
    async execute(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      const result = await ctx.backend.write(path, input.content);
      if (result.error) return { content: [{ type: "text", text: `Error: ${result.error}` }], isError: true };
      return {
        content: [{ type: "text", text: `Successfully wrote to '${path}'` }],
        display: [{ type: "diff", path, oldText: result.before ?? null, newText: input.content }],
        locations: [{ path, line: 1 }],
      };
    },
  });
}
