import { backendForCall } from "../backends/paths/approved-targets.js";
import type { BackendProtocol } from "../backends/protocol.js";
import type { MentionDecision } from "../gate/seams/mention.js";
import type { UserContent, UserMessage } from "../model/types.js";
import type { PromptBlock } from "../tools/types.js";

// A prompt (PromptBlock, tools/types.ts) as the session sees it, not yet read. Both of its conversions live here, over one switch (blockPlan), so a new block
// type cannot reach the model and miss the hooks' plain text, or the other way round.

/** Mentioned files larger than this are cut; the model can read the rest with read_file. */
const MAX_MENTION_CHARS = 200_000;

/** What one block contributes, before any file is read. */
export type BlockPlan = {
  /** Its part of the plain text (UserPromptSubmit hooks, session titles): the user's typed words only. */
  plain: string;
  /** Its parts of the model's user message, in order. */
  content: UserContent[];
  /** Embedded context appended after the message (a `<context>` element). */
  context?: string;
  /** A file to read; its context or image is added when resolved. */
  read?: string;
};

/** The one switch over block types. `supportsImages`: the current model can view images. */
export function blockPlan(block: PromptBlock, supportsImages: boolean): BlockPlan {
  switch (block.type) {
    case "text":
      return { plain: block.text, content: [{ type: "text", text: block.text }] };
    case "image":
      return {
        plain: "",
        content: [
          supportsImages
            ? { type: "image", mimeType: block.mimeType, data: block.data }
            : { type: "text", text: `[image ${block.uri ?? ""} omitted: the current model cannot view images]` },
        ],
      };
    case "link":
      return { plain: "", content: [{ type: "text", text: `[@${block.name}](${block.uri})` }] };
    case "file":
      return { plain: "", content: [{ type: "text", text: `@${block.path}` }], read: block.path };
    case "resource":
      if (block.text !== undefined)
        return {
          plain: "",
          content: [{ type: "text", text: `@${block.uri}` }],
          context: fileContext(block.uri, block.text),
        };
      if (block.blob && supportsImages && block.mimeType?.startsWith("image/"))
        return { plain: "", content: [{ type: "image", mimeType: block.mimeType, data: block.blob }] };
      return {
        plain: "",
        content: [{ type: "text", text: `[embedded ${block.mimeType ?? "binary"} resource ${block.uri} omitted]` }],
      };
  }
}

/** The prompt as plain text: what the user typed, without mentions or attachments. */
export function promptText(blocks: readonly PromptBlock[]): string {
  return blocks.map((block) => blockPlan(block, false).plain).join("");
}

/**
 * Turns prompt blocks into the user message the model sees: mentioned files are read (through the
 * editor when it offers fs, so unsaved buffers count) and embedded as context.
 */
export async function resolvePrompt(
  blocks: readonly PromptBlock[],
  backend: BackendProtocol,
  supportsImages: boolean,
  /** The gate's decision on a mentioned file: whether it may be embedded, and which real path to read. */
  decideMention: (path: string) => Promise<MentionDecision>,
): Promise<UserMessage> {
  const content: UserContent[] = [];
  const context: string[] = [];
  for (const block of blocks) {
    const plan = blockPlan(block, supportsImages);
    content.push(...plan.content);
    if (plan.context !== undefined) context.push(plan.context);
    if (plan.read === undefined) continue;
    const path = plan.read;
    const decision = await decideMention(path);
    if (!decision.ok) {
      context.push(`<context ref="${path}" error="${escapeAttr(decision.reason)}"/>`);
      continue;
    }
    // Read through a backend bound to the real path the gate decided on (a link swapped since is refused).
    const read = await backendForCall(backend, decision.approved).read(path, 0, Number.MAX_SAFE_INTEGER);
    if (read.error) context.push(`<context ref="${path}" error="${escapeAttr(read.error)}"/>`);
    else if (read.content instanceof Uint8Array) {
      if (supportsImages && read.mimeType?.startsWith("image/"))
        content.push({ type: "image", mimeType: read.mimeType, data: Buffer.from(read.content).toString("base64") });
      else
        context.push(
          `<context ref="${path}">binary file (${read.mimeType ?? "unknown type"}, ${read.content.byteLength} bytes)</context>`,
        );
    } else context.push(fileContext(path, read.content ?? ""));
  }
  if (context.length > 0) content.push({ type: "text", text: `\n\n${context.join("\n\n")}` });
  if (content.length === 0) content.push({ type: "text", text: "" });
  return { role: "user", content };
}

function fileContext(ref: string, text: string): string {
  const cut = text.length > MAX_MENTION_CHARS;
  const body = cut
    ? `${text.slice(0, MAX_MENTION_CHARS)}\n[... cut at ${MAX_MENTION_CHARS} characters; read the rest with read_file]`
    : text;
  return `<context ref="${escapeAttr(ref)}">\n${body}\n</context>`;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
