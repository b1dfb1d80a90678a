import { readFile } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import type { Diagnostic } from "../util/diagnostics.js";
import { errorMessage } from "../util/errors.js";
import { scopedMcpServerName } from "./ids.js";
import { isPlainObject } from "./manifest.js";
import { substitutePluginVariables } from "./substitution.js";

export type DeclaredMcpServers = { servers: Record<string, Record<string, unknown>>; diagnostics: Diagnostic[] };

/** Claude's `{"mcpServers": {...}}`, Codex's `{"mcp_servers": {...}}`, or a bare name -> server map. */
export function serverMap(document: unknown): Record<string, unknown> {
  if (!isPlainObject(document)) return {};
  if (isPlainObject(document.mcpServers)) return document.mcpServers;
  if (isPlainObject(document.mcp_servers)) return document.mcp_servers;
  return document;
}

/** The plugin's servers under their declared names, unsubstituted: `.mcp.json` files first, inline manifest entries win. */
export async function declaredMcpServers(
  mcpFiles: readonly string[],
  inline: Record<string, unknown> | undefined,
): Promise<DeclaredMcpServers> {
  const diagnostics: Diagnostic[] = [];
  const servers: Record<string, Record<string, unknown>> = {};
  const take = (map: Record<string, unknown>, source: string) => {
    for (const [name, server] of Object.entries(map)) {
      if (isPlainObject(server)) servers[name] = server;
      else diagnostics.push({ severity: "warning", source, message: `MCP server '${name}' is not an object; ignored` });
    }
  };
  for (const file of mcpFiles) {
    try {
      take(serverMap(JSON.parse(await readFile(file, "utf8"))), file);
    } catch (error) {
      diagnostics.push({
        severity: "error",
        source: file,
        message: `plugin MCP config skipped: ${errorMessage(error)}`,
      });
    }
  }
  if (inline) take(serverMap(inline), "plugin.json mcpServers");
  return { servers, diagnostics };
}

/**
 * Renames servers to `plugin__<id>__<name>`, substitutes the plugin variables, resolves a relative
 * `cwd` against the plugin root and gives stdio servers the plugin variables in their environment.
 */
export function scopeMcpServers(
  pluginId: string,
  root: string,
  declared: Record<string, Record<string, unknown>>,
  env: Readonly<Record<string, string>>,
): { servers: Record<string, Record<string, unknown>>; names: Record<string, string> } {
  const servers: Record<string, Record<string, unknown>> = {};
  const names: Record<string, string> = {};
  for (const [name, raw] of Object.entries(declared)) {
    const server = substitutePluginVariables(raw, env);
    if (typeof server.cwd === "string" && server.cwd !== "" && !isAbsolute(server.cwd))
      server.cwd = resolve(root, server.cwd);
    if (typeof server.command === "string") server.env = { ...env, ...(isPlainObject(server.env) ? server.env : {}) };
    const scoped = scopedMcpServerName(pluginId, name);
    servers[scoped] = server;
    names[scoped] = name;
  }
  return { servers, names };
}
