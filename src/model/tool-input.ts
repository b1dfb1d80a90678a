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
