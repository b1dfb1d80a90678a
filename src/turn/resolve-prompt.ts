import type { BackendProtocol } from "../backends/protocol.js";
import type { UserContent, UserMessage } from "../model/types.js";
import type { PromptBlock } from "./prompt-input.js";

/** Mentioned files larger than this are cut; the model can read the rest with read_file. */
const MAX_MENTION_CHARS = 200_000;

/**
 * Turns prompt blocks into the user message the model sees: mentioned files are read (through the
 * editor when it offers fs, so unsaved buffers count) and embedded as context.
 */
export async function resolvePrompt(
  blocks: readonly PromptBlock[],
  backend: BackendProtocol,
  supportsImages: boolean,
  /** Why a mentioned file may not be embedded (a link out of the project), or undefined. */
  refuseMention: (path: string) => Promise<string | undefined> = async () => undefined,
): Promise<UserMessage> {
  const content: UserContent[] = [];
  const context: string[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case "text":
        content.push({ type: "text", text: block.text });
        break;
      case "image":
        content.push(supportsImages ? { type: "image", mimeType: block.mimeType, data: block.data } : { type: "text", text: `[image ${block.uri ?? ""} omitted: the current model cannot view images]` });
        break;
      case "link":
        content.push({ type: "text", text: `[@${block.name}](${block.uri})` });
        break;
      case "file": {
        content.push({ type: "text", text: `@${block.path}` });
        const refused = await refuseMention(block.path);
        if (refused) {
          context.push(`<context ref="${block.path}" error="${escapeAttr(refused)}"/>`);
          break;
        }
        const read = await backend.read(block.path, 0, Number.MAX_SAFE_INTEGER);
        if (read.error) context.push(`<context ref="${block.path}" error="${escapeAttr(read.error)}"/>`);
        else if (read.content instanceof Uint8Array) {
          if (supportsImages && read.mimeType?.startsWith("image/")) content.push({ type: "image", mimeType: read.mimeType, data: Buffer.from(read.content).toString("base64") });
          else context.push(`<context ref="${block.path}">binary file (${read.mimeType ?? "unknown type"}, ${read.content.byteLength} bytes)</context>`);
        } else context.push(fileContext(block.path, read.content ?? ""));
        break;
      }
      case "resource":
        if (block.text !== undefined) {
          content.push({ type: "text", text: `@${block.uri}` });
          context.push(fileContext(block.uri, block.text));
        } else if (block.blob && supportsImages && block.mimeType?.startsWith("image/")) {
          content.push({ type: "image", mimeType: block.mimeType, data: block.blob });
        } else {
          content.push({ type: "text", text: `[embedded ${block.mimeType ?? "binary"} resource ${block.uri} omitted]` });
        }
        break;
    }
  }
  if (context.length > 0) content.push({ type: "text", text: `\n\n${context.join("\n\n")}` });
  if (content.length === 0) content.push({ type: "text", text: "" });
  return { role: "user", content };
}

function fileContext(ref: string, text: string): string {
  const cut = text.length > MAX_MENTION_CHARS;
  const body = cut ? `${text.slice(0, MAX_MENTION_CHARS)}\n[... cut at ${MAX_MENTION_CHARS} characters; read the rest with read_file]` : text;
  return `<context ref="${escapeAttr(ref)}">\n${body}\n</context>`;
}

function escapeAttr(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
