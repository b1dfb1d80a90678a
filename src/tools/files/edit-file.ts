import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { filePathField, withFilePathAlias } from "./file-input.js";
import { displayPath, resolveToolPath } from "./paths.js";
import { currentText } from "./current-text.js";
import { performStringReplacement } from "../../backends/files/edit-semantics.js";
import { pick } from "../hook-input.js";

const schema = withFilePathAlias({
  file_path: filePathField,
  old_string: z.string().describe("Exact text to replace (without line-number prefixes)"),
  new_string: z.string().describe("Replacement text"),
  replace_all: z.boolean().optional().describe("Replace every occurrence (default false: old_string must be unique)"),
});

export function createEditFileTool() {
  return defineTool({
    name: "edit_file",
    hookName: "Edit",
    hookInput: (i) =>
      pick({
        file_path: i.file_path,
        old_string: i.old_string,
        new_string: i.new_string,
        replace_all: i.replace_all ?? false,
      }),
    offloadLargeResults: false,
    kind: "edit",
    effect: "edit",
    schema,
    description: [
      "Replaces exact text in a file. Read the file first so old_string matches it exactly, including whitespace.",
      "old_string must occur exactly once unless replace_all is true; add surrounding lines to make it unique.",
    ].join("\n"),
    present(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      return { title: displayPath(path, ctx.roots), locations: [{ path }], paths: [path] };
    },
    async preview(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      const before = await currentText(ctx.backend, path);
      if (before === null) return [];
      const replaced = performStringReplacement(before, input.old_string, input.new_string, input.replace_all ?? false);
      if (!replaced.ok) return [];
      return [{ type: "diff", path, oldText: before, newText: replaced.content }];
    },
    async execute(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      const result = await ctx.backend.edit(path, input.old_string, input.new_string, input.replace_all ?? false);
      if (result.error)
        return {
          content: [{ type: "text", text: result.error.startsWith("Error") ? result.error : `Error: ${result.error}` }],
          isError: true,
        };
      const line = result.before !== undefined ? firstChangedLine(result.before, input.old_string) : undefined;
      return {
        content: [
          { type: "text", text: `Successfully replaced ${result.occurrences ?? 1} occurrence(s) in '${path}'` },
        ],
        display:
          result.before !== undefined && result.after !== undefined
            ? [{ type: "diff", path, oldText: result.before, newText: result.after }]
            : undefined,
        locations: [{ path, ...(line ? { line } : {}) }],
      };
    },
  });
}

function firstChangedLine(before: string, oldString: string): number | undefined {
  const index = oldString === "" ? 0 : before.indexOf(oldString);
  if (index < 0) return undefined;
  return before.slice(0, index).split("\n").length;
}
