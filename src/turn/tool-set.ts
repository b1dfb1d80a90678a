import type { SessionMode } from "../agent/modes.js";
import { createDeleteTool } from "../tools/delete.js";
import { createEditFileTool } from "../tools/edit-file.js";
import { createExecuteTool } from "../tools/execute.js";
import { createGlobTool } from "../tools/glob.js";
import { createGrepTool } from "../tools/grep.js";
import { createLsTool } from "../tools/ls.js";
import { createReadFileTool } from "../tools/read-file.js";
import type { AnyTool } from "../tools/types.js";
import { createWriteFileTool } from "../tools/write-file.js";
import { createWriteTodosTool } from "../tools/write-todos.js";
import { createAskUserTool } from "../tools/ask-user.js";
import { createProcessOutputTool, createProcessStopTool } from "../tools/processes.js";
import { createWebFetchTool } from "../tools/web-fetch.js";
import type { DeepAcpConfig } from "../config/config-file.js";

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

const READ_ONLY_EFFECTS = new Set(["read", "network", "none"]);

/** `plan` mode offers only tools that cannot change anything. */
export function toolsForMode(tools: readonly AnyTool[], mode: SessionMode): AnyTool[] {
  return mode === "plan" ? tools.filter((t) => READ_ONLY_EFFECTS.has(t.effect)) : [...tools];
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
