import { resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { runToolCall, type ToolRunEnv } from "../agent/tool-runner.js";
import type { PeerAgentConfig } from "../config/config-file.js";

// An agent that reads, edits and runs commands with its own built-in tools (claude-agent-acp: Read,
// Write, Edit, Bash never reach the editor's fs/* or terminal/*) is served our own file and shell
// tools as an MCP server instead (gate-tools-server.ts), and told in session/new to leave its
// built-in ones alone. Reads too: its own Read would reach any file it can open (a key, a token) and
// send it to its model past our file rules. Each call runs as the same tool call a
// deep-acp child's fs/terminal request becomes (peer-editor.ts): through the parent's gate (file
// rules, protected paths, dialogs, plan mode) in the session's workspace.

/** The server's name in session/new: the child's model sees `mcp__deep-acp__write_file` and so on. */
export const GATE_TOOLS_SERVER = "deep-acp";
export const GATE_TOOL_NAMES = ["write_file", "edit_file", "read_file", "execute", "ls", "glob", "grep"] as const;
/** Claude Code's own tools that read or change files or run commands, refused to it in favour of ours. */
export const CLAUDE_OWN_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit", "Bash", "Read", "Glob", "Grep"];

/**
 * A tool call the child reports of one of ours: claude-agent-acp names the tool in
 * `_meta.claudeCode.toolName`, and titles an MCP call with it.
 */
export function isGateToolCall(call: Pick<acp.ToolCall, "title" | "_meta">): boolean {
  const ours = (name: unknown) => typeof name === "string" && name.startsWith(`mcp__${GATE_TOOLS_SERVER}__`);
  const claudeCode = call._meta?.claudeCode as { toolName?: unknown } | undefined;
  return ours(claudeCode?.toolName) || ours(call.title);
}

export type GateTool = {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  _meta: Record<string, unknown>;
};
/**
 * Claude Code defers MCP tools behind its tool search (the model sees a placeholder until it searches);
 * ours replace its own Write and Bash, so they are offered from the first request.
 */
const ALWAYS_LOAD = { "anthropic/alwaysLoad": true };
export type GateToolResult = {
  content: Array<{ type: "text"; text: string } | { type: "image"; data: string; mimeType: string }>;
  isError?: boolean;
};

/** One task's end of the server: the tools it offers now and what a call of one does. */
export type GateToolsHost = {
  list(): GateTool[];
  call(name: string, args: Record<string, unknown>): Promise<GateToolResult>;
};

/**
 * `gate_tools` as set, else on for claude-agent-acp (by its initialize agentInfo name): the one
 * adapter known to take `_meta.claudeCode.options`.
 */
export function gatesTools(config: Pick<PeerAgentConfig, "gate_tools">, initialize: acp.InitializeResponse): boolean {
  if (config.gate_tools !== undefined) return config.gate_tools;
  return /claude-(agent|code)-acp$/.test(initialize.agentInfo?.name ?? "");
}

/** session/new's `_meta` that turns off Claude Code's own file and shell tools and lets ours run unasked by it (our gate asks). */
export function claudeGateMeta(): Record<string, unknown> {
  return {
    claudeCode: {
      options: { disallowedTools: CLAUDE_OWN_TOOLS, allowedTools: [`mcp__${GATE_TOOLS_SERVER}`] },
    },
  };
}

export function createGateToolsHost(options: {
  env: ToolRunEnv;
  /** The child's directory on this machine: its relative paths start there. */
  cwd: string;
  /** Where a path of the child's is in the session's workspace (peer-editor.ts's workspacePath). */
  place(path: string): string;
}): GateToolsHost {
  const { env } = options;
  const offered = () => GATE_TOOL_NAMES.flatMap((name) => (env.tools.has(name) ? [env.tools.get(name)!] : []));
  return {
    list: () =>
      offered().map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.jsonSchema,
        _meta: ALWAYS_LOAD,
      })),
    async call(name, args) {
      if (!offered().some((tool) => tool.name === name))
        return text(`${name} is not available in this session now (its mode or workspace does not offer it)`, true);
      const input = { ...args };
      // file_path (read, write, edit) and path (ls, glob, grep): the child's paths, in the workspace.
      for (const key of ["file_path", "path"])
        if (typeof input[key] === "string") input[key] = options.place(resolve(options.cwd, input[key]));
      const toolCallId = env.newToolCallId();
      const ran = await runToolCall(env, { toolCallId, name, input, modelCallId: toolCallId }, false);
      const content = ran.result.content.flatMap((part): GateToolResult["content"] =>
        part.type === "text"
          ? [{ type: "text", text: part.text }]
          : part.type === "image"
            ? [{ type: "image", data: part.data, mimeType: part.mimeType }]
            : [],
      );
      return {
        content: content.length ? content : [{ type: "text", text: "(no output)" }],
        ...(ran.result.isError ? { isError: true } : {}),
      };
    },
  };
}

function text(message: string, isError: boolean): GateToolResult {
  return { content: [{ type: "text", text: message }], ...(isError ? { isError: true } : {}) };
}
