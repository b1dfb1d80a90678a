import { z } from "zod";
import { defineTool } from "../define-tool.js";
import { filePathField, withFilePathAlias } from "./file-input.js";
import { MAX_TOOL_OUTPUT_CHARS, formatWithLineNumbers, readTruncationMessage, splitLines } from "../format.js";
import { displayPath, resolveToolPath } from "./paths.js";
import type { ToolResult } from "../types.js";
import { pick } from "../hook-input.js";

const MAX_BINARY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_READ_LIMIT = 2000;

const schema = withFilePathAlias({
  file_path: filePathField,
  offset: z.coerce.number().int().min(0).optional().describe("0-based line to start from (default 0)"),
  limit: z.coerce
    .number()
    .int()
    .positive()
    .optional()
    .describe(`Number of lines to read (default ${DEFAULT_READ_LIMIT})`),
});

export type ReadFileOptions = {
  /** Whether the model accepts images; otherwise images are described in text. Default true. */
  supportsImages?: boolean;
};

export function createReadFileTool(options: ReadFileOptions = {}) {
  const supportsImages = options.supportsImages ?? true;
  return defineTool({
    name: "read_file",
    hookName: "Read",
    // Claude's Read offset is a 1-based line number, ours a 0-based line index.
    hookInput: (i) =>
      pick({ file_path: i.file_path, offset: typeof i.offset === "number" ? i.offset + 1 : undefined, limit: i.limit }),
    offloadLargeResults: false,
    kind: "read",
    effect: "read",
    schema,
    description: [
      "Reads a file from the local filesystem.",
      `Returns up to ${DEFAULT_READ_LIMIT} lines starting at \`offset\` (0-based), numbered like \`cat -n\`: the line number, a TAB, then the line.`,
      "When editing, use the text after the TAB exactly; never include the number prefix in old_string.",
      "Images (png, jpg, gif, webp) are returned as images. Read large files in pieces with offset and limit.",
    ].join("\n"),
    present(input, ctx) {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      const offset = input.offset ?? 0;
      const range =
        input.offset || input.limit ? ` (${offset + 1} - ${offset + (input.limit ?? DEFAULT_READ_LIMIT)})` : "";
      return {
        title: `${displayPath(path, ctx.roots)}${range}`,
        locations: [{ path, line: offset + 1 }],
        paths: [path],
      };
    },
    async execute(input, ctx): Promise<ToolResult> {
      const path = resolveToolPath(input.file_path, ctx.cwd);
      const offset = input.offset ?? 0;
      const limit = input.limit ?? DEFAULT_READ_LIMIT;
      const result = await ctx.backend.read(path, offset, limit);
      if (result.error) return errorResult(`Error: ${result.error}`);
      const content = result.content ?? "";
      if (content instanceof Uint8Array)
        return binaryResult(path, content, result.mimeType ?? "application/octet-stream", supportsImages);
      if (content === "" && offset === 0) {
        return textResult("System reminder: File exists but has empty contents", path);
      }
      // Backends may return more than asked; the window is ours to enforce.
      const lines = splitLines(content).slice(0, limit);
      let text = formatWithLineNumbers(lines, offset + 1);
      if (text.length >= MAX_TOOL_OUTPUT_CHARS)
        text = text.slice(0, MAX_TOOL_OUTPUT_CHARS) + readTruncationMessage(path);
      const total = result.totalLines;
      if (total !== undefined && offset + lines.length < total) {
        text += `\n\n[Showing lines ${offset + 1}-${offset + lines.length} of ${total}. Use offset=${offset + lines.length} to read more.]`;
      }
      return {
        ...textResult(text, path, offset + 1),
        display: [{ type: "text", text: "```\n" + lines.join("\n") + "\n```" }],
      };
    },
  });
}

function textResult(text: string, path: string, line = 1): ToolResult {
  return { content: [{ type: "text", text }], locations: [{ path, line }] };
}

function errorResult(text: string): ToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

function binaryResult(path: string, bytes: Uint8Array, mimeType: string, supportsImages: boolean): ToolResult {
  if (bytes.byteLength > MAX_BINARY_BYTES) {
    const mb = (bytes.byteLength / 1024 / 1024).toFixed(1);
    return errorResult(`Error: file too large to read (${mb}MB exceeds 10MB limit for binary files)`);
  }
  if (!mimeType.startsWith("image/")) {
    return textResult(`Binary file ${path} (${mimeType}, ${bytes.byteLength} bytes) cannot be shown as text.`, path);
  }
  const data = Buffer.from(bytes).toString("base64");
  if (!supportsImages) {
    return textResult(
      `Image file ${path} (${mimeType}, ${bytes.byteLength} bytes); the current model cannot view images.`,
      path,
    );
  }
  return {
    content: [{ type: "image", mimeType, data }],
    display: [{ type: "image", mimeType, data }],
    locations: [{ path }],
  };
}
