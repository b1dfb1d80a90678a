import type { HookToolInput } from "./events.js";

// Our model-facing tools under the names and input shapes Claude Code's hooks see, so matchers like
// "Edit|Write" and scripts reading tool_input.file_path keep working.

export type HookToolMapping = {
  hookName: string;
  /** Converts validated native input into Claude's `tool_input` shape. */
  toHookInput(input: Record<string, unknown>): HookToolInput;
};

export const HOOK_TOOL_MAPPINGS: Readonly<Record<string, HookToolMapping>> = {
  execute: {
    hookName: "Bash",
    // Claude's Bash timeout is in milliseconds, ours in seconds.
    toHookInput: (i) => pick({ command: i.command, timeout: typeof i.timeout === "number" ? i.timeout * 1000 : undefined }),
  },
  write_file: { hookName: "Write", toHookInput: (i) => pick({ file_path: filePath(i), content: i.content }) },
  edit_file: {
    hookName: "Edit",
    toHookInput: (i) =>
      pick({ file_path: filePath(i), old_string: i.old_string, new_string: i.new_string, replace_all: i.replace_all ?? false }),
  },
  read_file: {
    hookName: "Read",
    // Claude's Read offset is a 1-based line number, ours a 0-based line index.
    toHookInput: (i) =>
      pick({ file_path: filePath(i), offset: typeof i.offset === "number" ? i.offset + 1 : undefined, limit: i.limit }),
  },
  glob: { hookName: "Glob", toHookInput: (i) => pick({ pattern: i.pattern, path: i.path }) },
  grep: {
    hookName: "Grep",
    // Our grep pattern is literal; Claude's is a regex, so hooks get the escaped form.
    toHookInput: (i) =>
      pick({
        pattern: typeof i.pattern === "string" ? escapeRegex(i.pattern) : i.pattern,
        path: i.path,
        glob: i.glob ?? undefined,
        output_mode: i.output_mode,
        head_limit: i.max_count ?? undefined,
      }),
  },
  ls: { hookName: "LS", toHookInput: (i) => pick({ path: i.path }) },
  delete: { hookName: "Delete", toHookInput: (i) => pick({ file_path: filePath(i) }) },
  write_todos: { hookName: "TodoWrite", toHookInput: (i) => pick({ todos: i.todos }) },
  task: { hookName: "Task", toHookInput: (i) => pick({ description: i.description, subagent_type: i.subagent_type }) },
  eval: { hookName: "Eval", toHookInput: (i) => pick({ code: i.code }) },
};

/** Native name -> wire name, for the built-in tools. */
export const HOOK_TOOL_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(HOOK_TOOL_MAPPINGS).map(([native, mapping]) => [native, mapping.hookName]),
);

/** `mcp__<server>__<tool>`: the wire name of an MCP tool (natively `<server>_<tool>`). */
export function mcpHookToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

export type HookToolNameOptions = {
  /** Connected MCP server names, so `<server>_<tool>` can be split even when names contain `_`. */
  mcpServers?: Iterable<string>;
};

/** Wire name for a native tool name; MCP tools need their server listed; others pass unchanged. */
export function toHookToolName(nativeName: string, options: HookToolNameOptions = {}): string {
  const builtin = HOOK_TOOL_MAPPINGS[nativeName];
  if (builtin) return builtin.hookName;
  let server: string | undefined;
  for (const candidate of options.mcpServers ?? []) {
    if (nativeName.startsWith(`${candidate}_`) && nativeName.length > candidate.length + 1) {
      if (server === undefined || candidate.length > server.length) server = candidate;
    }
  }
  return server === undefined ? nativeName : mcpHookToolName(server, nativeName.slice(server.length + 1));
}

/** Claude-shaped `tool_input` for a built-in tool; other tools' input passes unchanged. */
export function toHookToolInput(nativeName: string, input: unknown): HookToolInput {
  const record = isRecord(input) ? input : {};
  const mapping = HOOK_TOOL_MAPPINGS[nativeName];
  return mapping ? mapping.toHookInput(record) : { ...record };
}

/**
 * `tool_response` for PostToolUse, in Claude Code's shape where hook scripts commonly read it: Bash
 * gets `{stdout, stderr, interrupted, isImage}` (our shell merges both streams into `stdout`, as the
 * model sees them) and Task `{content: [{type: "text", text}]}`, each plus our structured fields.
 * Other tools give their structured `rawOutput` when they have one, else the text the model saw.
 */
export function toHookToolResponse(result: { content: readonly unknown[]; isError?: boolean; rawOutput?: unknown }, nativeName?: string): unknown {
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

export function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function filePath(input: Record<string, unknown>): unknown {
  return input.file_path ?? input.path;
}

function pick(fields: Record<string, unknown>): HookToolInput {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
