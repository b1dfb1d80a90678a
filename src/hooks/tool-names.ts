// Tool payloads in the shapes Claude Code's hooks see. Each tool declares its own wire name
// (`hookName`) and `tool_input` mapping (`hookInput`); this file keeps what is shared.

/** `mcp__<server>__<tool>`: the wire name of an MCP tool (natively `<server>_<tool>`). */
export function mcpHookToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** The server and tool of an MCP tool's wire name, or undefined for any other name. */
export function parseMcpHookToolName(name: string): { server: string; tool: string } | undefined {
  const match = /^mcp__(.+?)__(.+)$/.exec(name);
  return match ? { server: match[1]!, tool: match[2]! } : undefined;
}

/**
 * `tool_response` for PostToolUse, in Claude Code's shape where hook scripts commonly read it: Bash
 * gets `{stdout, stderr, interrupted, isImage}` (our shell merges both streams into `stdout`, as the
 * model sees them) and Task `{content: [{type: "text", text}]}`, each plus our structured fields.
 * Other tools give their structured `rawOutput` when they have one, else the text the model saw.
 */
export function toHookToolResponse(
  result: { content: readonly unknown[]; isError?: boolean; rawOutput?: unknown },
  nativeName?: string,
): unknown {
  const raw = isRecord(result.rawOutput) ? result.rawOutput : undefined;
  const text = result.content
    .map((part) => (isRecord(part) && part.type === "text" && typeof part.text === "string" ? part.text : ""))
    .filter((part) => part !== "")
    .join("\n");
  if (nativeName === "execute") {
    const interrupted = raw?.timedOut === true || (raw?.signal !== undefined && raw.signal !== null);
    return { stdout: text, stderr: "", interrupted, isImage: false, ...raw };
  }
  if (nativeName === "task") return { content: [{ type: "text", text }], ...raw };
  return raw ?? text;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
