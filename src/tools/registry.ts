import { createDeleteTool } from "./files/delete.js";
import { createEditFileTool } from "./files/edit-file.js";
import { createExecuteTool } from "./shell/execute.js";
import { createGlobTool } from "./files/glob.js";
import { createGrepTool } from "./files/grep.js";
import { createLsTool } from "./files/ls.js";
import { createReadFileTool } from "./files/read-file.js";
import type { AnyTool } from "./types.js";
import { createWriteFileTool } from "./files/write-file.js";
import { createWriteTodosTool } from "./user/write-todos.js";
import { createAskUserTool } from "./user/ask-user.js";
import { createProcessOutputTool, createProcessStopTool } from "./shell/processes.js";
import { createWebFetchTool } from "./web/web-fetch.js";
import { defaultConfig, type DeepAcpConfig } from "../config/config-file.js";

// The built-in tools. Each tool declares its own facts once, in its file: name, description, schema,
// kind, effect, hook (Claude Code) name and `tool_input` mapping, and whether large results are
// offloaded. This file lists them: what a session offers, and the names nothing else may take.

/** Built-in tools made outside this table, each named here for the file that builds it. */
/** turn/task-tool.ts, over the session's subagents. */
export const TASK_TOOL_NAME = "task";
/** interpreter/eval-tool.ts, over the turn's tools. */
export const EVAL_TOOL_NAME = "eval";

let builtinNames: readonly string[] | undefined;

/**
 * Every built-in tool's model-facing name, read off the tools themselves: the table's (all of them:
 * images and commands on), `web_fetch`, and those built elsewhere (`task`, `eval`). MCP
 * tools may not take these names.
 */
export function builtinToolNames(): readonly string[] {
  builtinNames ??= [
    ...builtinTools({ supportsImages: true, canExecute: true }).map((tool) => tool.name),
    webFetchTool(defaultConfig(), {}).name,
    TASK_TOOL_NAME,
    EVAL_TOOL_NAME,
  ];
  return builtinNames;
}

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
