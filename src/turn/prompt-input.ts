// A prompt as the session sees it: ACP's content blocks already resolved to absolute paths by acp/,
// but not yet read. The session reads referenced files itself (through the editor when it can).

export type PromptBlock =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string; uri?: string }
  /** A mentioned file (ACP resource_link with a file:// or cwd-relative URI). */
  | { type: "file"; path: string; name: string; uri: string }
  /** Any other link (http, zed://...) the agent cannot read itself. */
  | { type: "link"; uri: string; name: string }
  /** Embedded context (ACP resource): text, or base64 blob. */
  | { type: "resource"; uri: string; text?: string; blob?: string; mimeType?: string };

export function promptText(blocks: readonly PromptBlock[]): string {
  return blocks.map((b) => (b.type === "text" ? b.text : "")).join("");
}
