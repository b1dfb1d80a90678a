// Helpers for a tool's `hookInput`: Claude Code's `tool_input` shape for hook payloads, so matchers
// like "Edit|Write" and scripts reading tool_input.file_path keep working.

export type HookToolInput = Record<string, unknown>;

/** The fields that are set. */
export function pick(fields: Record<string, unknown>): HookToolInput {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Our grep pattern is literal; Claude's is a regex, so hooks get the escaped form. */
export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
