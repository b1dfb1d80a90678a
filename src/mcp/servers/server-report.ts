// What `/mcp` and `deep-acp mcp list` show of one server: built from the manager's state of it
// and the tools it currently offers.

import type { AnyTool } from "../../tools/types.js";
import type { McpConnection } from "./connection.js";
import { applyToolFilter } from "../config/tool-filter.js";
import type { McpTrustState } from "../trust/trust.js";
import type { McpServerEntry, McpSource, McpTransport } from "../config/types.js";

export type McpServerStatus = "connecting" | "ok" | "unauthenticated" | "error" | "disabled" | "untrusted";

export type McpToolReport = { name: string; mcpName: string; readOnly: boolean; description: string };

/** One server as `/mcp` and `deep-acp mcp list` show it. */
export type McpServerReport = {
  name: string;
  source: McpSource;
  origin: string;
  transport: McpTransport | "unknown";
  /** What it runs or where it connects, as configured (placeholders unexpanded, no header values). */
  target: string;
  status: McpServerStatus;
  reason?: string;
  trust: McpTrustState | null;
  tools: McpToolReport[];
  /** Tools removed by allowedTools / disabledTools. */
  hiddenTools: string[];
  warnings: string[];
  server?: { name?: string; version?: string };
  /** Instructions the server sent at initialize (for the system prompt). */
  instructions?: string;
  pid?: number;
};

/** The manager's state of one server that a report needs. */
export type McpServerState = {
  entry: McpServerEntry;
  status: McpServerStatus;
  reason?: string;
  trust: McpTrustState | null;
  connection?: McpConnection;
};

/** `tools` are the server's adapted tools as offered to the model. */
export function reportServer(
  state: McpServerState,
  tools: ReadonlyArray<{ tool: AnyTool; mcpName: string; readOnly: boolean; description: string }>,
): McpServerReport {
  const { entry, connection } = state;
  const listed = connection?.tools.map((tool) => tool.name) ?? [];
  const filter = connection ? applyToolFilter(entry.name, listed, entry.definition?.filter) : null;
  const warnings = [...entry.warnings];
  if (filter && filter.unmatched.length > 0)
    warnings.push(`filter entries matching no tool: ${filter.unmatched.join(", ")}`);
  for (const item of tools) {
    if (item.tool.name !== `${entry.name}_${item.mcpName}`)
      warnings.push(`tool "${item.mcpName}" is offered as "${item.tool.name}"`);
  }
  const version = connection
    ? {
        ...(connection.serverName ? { name: connection.serverName } : {}),
        ...(connection.serverVersion ? { version: connection.serverVersion } : {}),
      }
    : undefined;
  return {
    name: entry.name,
    source: entry.source,
    origin: entry.origin,
    transport: entry.definition?.transport ?? "unknown",
    target: targetOf(entry),
    status: state.status,
    ...(state.reason ? { reason: state.reason } : {}),
    trust: state.trust,
    tools: tools.map((item) => ({
      name: item.tool.name,
      mcpName: item.mcpName,
      readOnly: item.readOnly,
      description: item.description,
    })),
    hiddenTools: filter?.removed ?? [],
    warnings,
    ...(version && Object.keys(version).length > 0 ? { server: version } : {}),
    ...(connection?.instructions ? { instructions: connection.instructions } : {}),
    ...(connection?.pid ? { pid: connection.pid } : {}),
  };
}

export function targetOf(entry: McpServerEntry): string {
  const definition = entry.definition;
  if (!definition) return "(invalid)";
  if (definition.transport === "stdio") return [definition.command, ...definition.args].join(" ");
  const headers = Object.keys(definition.headers);
  return `${definition.url}${headers.length > 0 ? ` [headers: ${headers.join(", ")}]` : ""}${definition.auth ? " [oauth]" : ""}`;
}
