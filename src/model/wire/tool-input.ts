import type { ToolResultMessage } from "../types.js";

/** Tool input JSON exactly as the model streamed it, kept when it does not parse. */
export type RawToolInput = { __raw: string };

/**
 * Parses streamed tool-call arguments. Empty means no arguments (`{}`); unparsable text is kept as
 * `{ __raw }` so the agent can show the model what it sent instead of failing the turn.
 */
export function parseToolInput(json: string): unknown {
  if (json.trim() === "") return {};
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return { __raw: json } satisfies RawToolInput;
  }
}

export function isRawToolInput(input: unknown): input is RawToolInput {
  return (
    typeof input === "object" &&
    input !== null &&
    Object.keys(input).length === 1 &&
    typeof (input as { __raw?: unknown }).__raw === "string"
  );
}

/** A tool result as one text, with a placeholder when it is only images (they follow separately). */
export function toolText(message: ToolResultMessage): string {
  const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const imageCount = message.content.length - message.content.filter((part) => part.type === "text").length;
  if (text !== "" || imageCount === 0) return text;
  return `(${imageCount} image${imageCount === 1 ? "" : "s"} attached below)`;
}

/** Arguments go back exactly as the model produced them, including unparsable ones. */
export function toolArguments(input: unknown): string {
  if (isRawToolInput(input)) return input.__raw;
  return JSON.stringify(input ?? {});
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Tool input for APIs that take it as a JSON object: unparsable input (kept as `{ __raw }`) and anything
 * else that is not an object goes back as `{}`, never as our placeholder posing as real arguments.
 */
export function toolInputObject(input: unknown): Record<string, unknown> {
  return isPlainObject(input) && !isRawToolInput(input) ? input : {};
}
