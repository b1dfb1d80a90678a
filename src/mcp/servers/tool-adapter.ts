// MCP tool -> ToolDefinition. The model sees `<server>_<tool>`; hooks see `mcp__<server>__<tool>`.

import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { AnyTool, ToolContext, ToolResult } from "../../tools/types.js";
import { mcpHookToolName } from "../../hooks/tool-names.js";
import { isCoherentlyReadOnly } from "./annotations.js";
import { sha256Hex } from "../config/fingerprint.js";

/** Model APIs accept `^[A-Za-z0-9_-]{1,64}$` tool names. */
const MAX_NAME = 64;

export type McpToolCaller = (tool: string, args: Record<string, unknown>, ctx: ToolContext) => Promise<ToolResult>;

export type AdaptedTool = { tool: AnyTool; mcpName: string; readOnly: boolean };

/** `approvalScope`: binds remembered approvals to one definition (see ToolDefinition.approvalId). */
export function adaptMcpTool(
  server: string,
  tool: Tool,
  modelName: string,
  call: McpToolCaller,
  approvalScope?: string,
): AdaptedTool {
  const readOnly = isCoherentlyReadOnly(tool.annotations);
  const schema = { ...(tool.inputSchema as Record<string, unknown>) };
  delete schema.$schema;
  if (schema.type === undefined) schema.type = "object";
  const description = tool.description?.trim() || tool.title || `Tool "${tool.name}" of MCP server "${server}".`;
  const definition: AnyTool = {
    name: modelName,
    hookName: mcpHookToolName(server, tool.name),
    description,
    jsonSchema: schema,
    kind: "other",
    effect: readOnly ? "read" : "external",
    ...(approvalScope ? { approvalId: `${approvalScope}:${tool.name}` } : {}),
    validate(raw) {
      if (raw === undefined || raw === null) return { success: true, data: {} };
      if (typeof raw !== "object" || Array.isArray(raw))
        return { success: false, error: "arguments must be a JSON object" };
      return { success: true, data: raw as Record<string, unknown> };
    },
    // `server/tool`, no colon: CodeCompanion keeps only what comes before a title's colon.
    present: () => ({ title: `${server}/${tool.name}` }),
    execute: (input: Record<string, unknown>, ctx) => call(tool.name, input, ctx),
  };
  return { tool: definition, mcpName: tool.name, readOnly };
}

/**
 * `<server>_<tool>` made safe for model APIs: other characters become `_`, and names longer than
 * 64 characters (or clashing with a name already taken) end in a short hash of the original.
 */
export function modelToolName(server: string, tool: string, taken: ReadonlySet<string>): string {
  const base = `${server}_${tool}`.replace(/[^A-Za-z0-9_-]/g, "_");
  if (base.length <= MAX_NAME && !taken.has(base)) return base;
  const suffix = `_${sha256Hex(`${server}\0${tool}`).slice(0, 8)}`;
  return `${base.slice(0, MAX_NAME - suffix.length)}${suffix}`;
}
