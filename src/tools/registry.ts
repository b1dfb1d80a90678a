import { createDeleteTool } from "./delete.js";
import { createEditFileTool } from "./edit-file.js";
import { createExecuteTool } from "./execute.js";
import { createGlobTool } from "./glob.js";
import { createGrepTool } from "./grep.js";
import { createLsTool } from "./ls.js";
import { createReadFileTool } from "./read-file.js";
import type { AnyTool } from "./types.js";
import { createWriteFileTool } from "./write-file.js";
import { createWriteTodosTool } from "./write-todos.js";
import { createAskUserTool } from "./ask-user.js";
import { createProcessOutputTool, createProcessStopTool } from "./processes.js";
import { createWebFetchTool } from "./web-fetch.js";
import type { DeepAcpConfig } from "../config/config-file.js";

// The built-in tools. Each tool declares its own facts once, in its file: name, description, schema,
// kind, effect, hook (Claude Code) name and `tool_input` mapping, and whether large results are
// offloaded. This file lists them: what a session offers, and the names nothing else may take.

/**
 * Every built-in tool's model-facing name, including those built elsewhere (`task` in turn/, `eval`
 * in interpreter/) and the background-process tools. MCP tools may not take these names.
 */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  "ls",
  "read_file",
  "write_file",
  "edit_file",
  "delete",
  "glob",
  "grep",
  "execute",
  "write_todos",
  "task",
  "eval",
  "ask_user",
  "web_fetch",
  "process_output",
  "process_stop",
];

export type BuiltinToolOptions = {
  supportsImages: boolean;
  /** Whether the session can run commands at all. */
  canExecute: boolean;
};

/** The built-in file, shell and planning tools, in the order the model sees them. */
export function builtinTools(options: BuiltinToolOptions): AnyTool[] {
  const tools: AnyTool[] = [
    createLsTool(),
    createReadFileTool({ supportsImages: options.supportsImages }),
    createWriteFileTool(),
    createEditFileTool(),
    createDeleteTool(),
    createGlobTool(),
    createGrepTool(),
  ];
  if (options.canExecute) tools.push(createExecuteTool(), createProcessOutputTool(), createProcessStopTool());
  tools.push(createWriteTodosTool(), createAskUserTool());
  return tools;
}

/** `web_fetch` with the limits and private-network allowances of config.toml `[web_fetch]`. */
export function webFetchTool(config: DeepAcpConfig, env: NodeJS.ProcessEnv): AnyTool {
  const web = config.web_fetch;
  return createWebFetchTool({
    timeoutMs: web.timeout_seconds * 1000,
    maxBytes: web.max_bytes,
    maxRedirects: web.max_redirects,
    allowPrivateNetworks: web.allow_private_networks,
    env,
    userAgent: "deep-acp (coding agent; web_fetch)",
  });
}
