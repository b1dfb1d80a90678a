// The content vocabulary every room shares, low enough for all of them: what a user sends (a prompt's
// blocks, ACP content already resolved to absolute paths by acp/, not yet read) and what the editor
// is shown of a tool call. The transcript records both; turn/ reads prompts; tools/ make displays.

export type PromptBlock =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string; uri?: string }
  /** A mentioned file (ACP resource_link with a file:// or cwd-relative URI). */
  | { type: "file"; path: string; name: string; uri: string }
  /** Any other link (http, zed://...) the agent cannot read itself. */
  | { type: "link"; uri: string; name: string }
  /** Embedded context (ACP resource): text, or base64 blob. */
  | { type: "resource"; uri: string; text?: string; blob?: string; mimeType?: string };

export type ToolLocation = { path: string; /** 1-based */ line?: number };

/** What the editor shows for a call; richer than what the model sees. */
export type ToolDisplay =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };
