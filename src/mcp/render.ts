// Plain-text views: `deep-acp mcp list` and the `/mcp` slash command.

import type { Diagnostic } from "../util/diagnostics.js";
import { formatDiagnostic } from "../util/diagnostics.js";
import type { McpConfigFileStatus } from "./config/discovery.js";
import type { McpServerReport } from "./servers/server-report.js";
import type { McpTrustState } from "./trust/trust.js";

export type McpListReport = {
  files: McpConfigFileStatus[];
  servers: McpServerReport[];
  diagnostics: Diagnostic[];
  /** --no-mcp */
  disabled: boolean;
  /** False when servers were not contacted (statuses then only say what would happen). */
  connected: boolean;
};

const TRUST_LABEL: Record<McpTrustState, string> = {
  trusted: "trusted",
  approved: "approved",
  "approved-once": "allowed for this session",
  flag: "trusted by --trust-project-mcp",
  denied: "never allow",
  rejected: "rejected for this session",
  pending: "not approved",
};

export function renderMcpList(report: McpListReport): string {
  if (report.disabled) return "MCP is disabled (--no-mcp).\n";
  const lines: string[] = ["Config files (lowest priority first):"];
  const sourceWidth = Math.max(...report.files.map((file) => file.source.length), 6);
  for (const file of report.files) {
    const state =
      file.status === "found"
        ? `found, ${file.servers.length} server${file.servers.length === 1 ? "" : "s"}`
        : file.status === "missing"
          ? (file.error ?? "not found")
          : `invalid: ${file.error ?? "unreadable"}`;
    lines.push(`  ${file.source.padEnd(sourceWidth)}  ${file.path}  (${state})`);
  }
  lines.push("");
  if (report.servers.length === 0) lines.push("No MCP servers configured.");
  else lines.push("Servers:");
  for (const server of report.servers) {
    const status =
      server.status === "ok" ? `ok, ${server.tools.length} tool${server.tools.length === 1 ? "" : "s"}` : server.status;
    lines.push(
      `  ${server.name}  [${server.source}, ${server.transport}]  ${status}${server.reason ? ` - ${server.reason}` : ""}`,
    );
    lines.push(`      ${server.transport === "stdio" ? "runs" : "url"}: ${server.target}`);
    lines.push(`      from: ${server.origin}`);
    if (server.trust) lines.push(`      trust: ${TRUST_LABEL[server.trust]}`);
    for (const warning of server.warnings) lines.push(`      warning: ${warning}`);
  }
  if (!report.connected && report.servers.length > 0) lines.push("", "(servers were not contacted)");
  const problems = report.diagnostics.filter((d) => d.severity !== "info");
  if (problems.length > 0) {
    lines.push("", "Problems:");
    for (const diagnostic of problems) lines.push(`  ${formatDiagnostic(diagnostic)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Markdown for `/mcp`: every server, its status and reason, and its tools. */
export function renderMcpStatus(servers: readonly McpServerReport[]): string {
  if (servers.length === 0)
    return "No MCP servers configured. Add them to `.mcp.json` in the project or `~/.deepagents/.mcp.json`, then `/reload`.";
  const out: string[] = [];
  for (const server of servers) {
    const icon = server.status === "ok" ? "✓" : server.status === "connecting" ? "…" : "✗";
    out.push(`### ${icon} ${server.name} — ${server.status}`);
    out.push(`- ${server.transport}: \`${server.target}\``);
    out.push(`- source: ${server.source} (${server.origin})${server.trust ? `, ${TRUST_LABEL[server.trust]}` : ""}`);
    if (server.reason) out.push(`- reason: ${server.reason}`);
    for (const warning of server.warnings) out.push(`- warning: ${warning}`);
    if (server.tools.length > 0) {
      out.push(`- tools (${server.tools.length}):`);
      for (const tool of server.tools)
        out.push(`  - \`${tool.name}\`${tool.readOnly ? " (read-only, as the server claims)" : ""}`);
    }
    if (server.hiddenTools.length > 0) out.push(`- hidden by filter: ${server.hiddenTools.join(", ")}`);
    out.push("");
  }
  return out.join("\n").trimEnd();
}

const INSTRUCTIONS_CHARS = 2000;

/**
 * The system prompt's view of MCP: connected servers grouped by name and transport with their
 * tools, so the model knows where a tool comes from and what fails together. Empty when none.
 */
export function renderMcpPromptSection(servers: readonly McpServerReport[]): string {
  const connected = servers.filter((server) => server.status === "ok" && server.tools.length > 0);
  if (connected.length === 0) return "";
  const lines = [
    "## MCP servers",
    "Tools named `<server>_<tool>` come from these external MCP servers; a server that fails affects only its own tools.",
  ];
  for (const server of connected) {
    lines.push(`- ${server.name} (${server.transport}): ${server.tools.map((tool) => `\`${tool.name}\``).join(", ")}`);
    const instructions = server.instructions?.trim();
    if (instructions) {
      const cut =
        instructions.length > INSTRUCTIONS_CHARS ? `${instructions.slice(0, INSTRUCTIONS_CHARS)}…` : instructions;
      lines.push(`  Server instructions: ${cut.replace(/\n+/g, " ")}`);
    }
  }
  return lines.join("\n");
}
