import type { BackendProtocol } from "../../backends/protocol.js";
import type { UserContent } from "../../model/types.js";
import { splitLines } from "../../tools/format.js";
import type { AnyTool, ToolDisplay, ToolResult } from "../../tools/types.js";
import { errorMessage } from "../../util/errors.js";
import { clip } from "./markdown.js";

// Large tool results (reference/system-inventory.md §12): a result whose text is longer than the
// threshold is saved to /large_tool_results/<id>.txt and the model gets the path and a head/tail
// preview instead; it can read_file the rest. The editor still shows the real output.

export type ResultOffloaderOptions = {
  /** Where offloaded results are written (the session's composite backend). */
  backend: BackendProtocol;
  /** Results with more text than this many characters are offloaded. Default 80,000 (20,000 tokens × 4). */
  thresholdChars?: number;
  /** Default "/large_tool_results/". */
  prefix?: string;
};

export type FinalizeResult = (call: { toolCallId: string; tool: AnyTool }, result: ToolResult) => Promise<ToolResult>;

const PREVIEW_LINE_CHARS = 1000;

/** The `finalizeResult` step of a turn: offloads large results, passes every other result through unchanged. */
export function createResultOffloader(options: ResultOffloaderOptions): FinalizeResult {
  const threshold = options.thresholdChars ?? 80_000;
  const prefix = (options.prefix ?? "/large_tool_results/").replace(/\/*$/, "/");

  return async ({ toolCallId, tool }, result) => {
    if (tool.offloadLargeResults === false) return result;
    const text = result.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
    if (text.length <= threshold) return result;

    const path = `${prefix}${sanitizeToolCallId(toolCallId)}.txt`;
    let message: string;
    try {
      const written = await options.backend.write(path, text);
      message =
        written.error === undefined
          ? tooLargeMessage(toolCallId, path, createContentPreview(text))
          : notSavedMessage(written.error, text, threshold);
    } catch (error) {
      message = notSavedMessage(errorMessage(error), text, threshold);
    }
    const images = result.content.filter((part) => part.type === "image");
    const content: UserContent[] = [{ type: "text", text: message }, ...images];
    return { ...result, content, display: result.display ?? toDisplay(result.content) };
  };
}

/** `.`, `/` and `\` would make the id a path of its own. */
export function sanitizeToolCallId(toolCallId: string): string {
  return toolCallId.replace(/[./\\]/g, "_");
}

/**
 * First and last lines of `text` (5 each by default, each cut to 1000 characters), numbered like
 * read_file output, with `... [N lines truncated] ...` between them.
 */
export function createContentPreview(text: string, headLines = 5, tailLines = 5): string {
  const lines = splitLines(text).map((line) => line.slice(0, PREVIEW_LINE_CHARS));
  const numbered = (slice: string[], first: number) =>
    slice.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join("\n");
  if (lines.length <= headLines + tailLines) return numbered(lines, 1);
  const omitted = lines.length - headLines - tailLines;
  return `${numbered(lines.slice(0, headLines), 1)}\n... [${omitted} lines truncated] ...\n${numbered(lines.slice(lines.length - tailLines), lines.length - tailLines + 1)}`;
}

function tooLargeMessage(toolCallId: string, path: string, preview: string): string {
  return [
    `Tool result too large, the result of this tool call ${toolCallId} was saved in the filesystem at this path: ${path}`,
    "You can read the result from the filesystem by using the read_file tool, but make sure to only read part of the result at a time.",
    "You can do this by specifying an offset and limit in the read_file tool call.",
    "For example, to read the first 100 lines, you can use the read_file tool with offset=0 and limit=100.",
    "",
    "Here is a preview showing the head and tail of the result (lines of the form",
    "... [N lines truncated] ...",
    "indicate omitted lines in the middle of the content):",
    "",
    preview,
  ].join("\n");
}

/** Unsaved, the model still gets the start and end of the output: a quarter of the threshold. */
function notSavedMessage(error: string, text: string, threshold: number): string {
  return `Tool result too large, but the result could not be saved to the filesystem: ${error}\n\n${clip(text, Math.floor(threshold / 4))}`;
}

function toDisplay(content: readonly UserContent[]): ToolDisplay[] {
  return content.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "image", mimeType: part.mimeType, data: part.data },
  );
}
