// Finds every MCP config source, validates each server and merges by name: a higher source
// replaces the whole server object of a lower one (no deep merge), as Claude Code and dcode do.

import { readFile as fsReadFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { Diagnostic } from "../../util/diagnostics.js";
import { errorMessage } from "../../util/errors.js";
import { fingerprintServer } from "./fingerprint.js";
import {
  UNTRUSTED_SOURCES,
  type EditorMcpServer,
  type McpServerEntry,
  type McpSource,
  type PluginMcpServers,
} from "./types.js";
import { isRecord, SERVER_NAME, validateServer } from "./validate.js";

export type McpConfigFileStatus = {
  path: string;
  source: McpSource;
  /** `missing` files are fine (only `--mcp-config` must exist); `invalid` files contributed nothing. */
  status: "found" | "missing" | "invalid";
  /** Server names the file defines (valid or not). */
  servers: string[];
  error?: string;
};

export type McpDiscovery = {
  /** Merged servers, one per name, in first-seen order. */
  items: McpServerEntry[];
  files: McpConfigFileStatus[];
  diagnostics: Diagnostic[];
  /** True when `--no-mcp` turned MCP off. */
  disabled: boolean;
};

export type McpDiscoveryOptions = {
  /** Project root (`findProjectRoot(cwd)`); its `.deepagents/.mcp.json` and `.mcp.json` are read. */
  projectRoot: string;
  /** Home directory; `~/.deepagents/.mcp.json` is read. Default: required unless `userFile` is set. */
  home?: string;
  /** Overrides the user file path. Default: `<home>/.deepagents/.mcp.json`. */
  userFile?: string;
  /** `--mcp-config PATH`, resolved against `cwd`. Default: none. */
  configFlag?: string;
  /** `--no-mcp`: nothing is loaded (editor and plugin servers included). Default: false. */
  noMcp?: boolean;
  /** Servers from ACP `session/new` / `session/load`. Default: none. */
  editorServers?: readonly EditorMcpServer[];
  /** Servers contributed by enabled plugins. Default: none. */
  pluginServers?: readonly PluginMcpServers[];
  /** Base for a relative `configFlag`. Default: process.cwd(). */
  cwd?: string;
  /** Default: fs/promises readFile (utf8). */
  readFile?: (path: string) => Promise<string>;
};

export const MCP_FLAGS_CONFLICT = "--no-mcp and --mcp-config cannot be used together";

/** Every config file looked for, lowest priority first. */
export function mcpConfigSources(
  options: Pick<McpDiscoveryOptions, "projectRoot" | "home" | "userFile" | "configFlag" | "cwd">,
) {
  const userFile = options.userFile ?? join(options.home ?? "", ".deepagents", ".mcp.json");
  const root = resolve(options.projectRoot);
  const sources: Array<{ path: string; source: McpSource }> = [
    { path: userFile, source: "user" },
    { path: join(root, ".deepagents", ".mcp.json"), source: "project" },
    { path: join(root, ".mcp.json"), source: "project-root" },
  ];
  if (options.configFlag)
    sources.push({ path: resolve(options.cwd ?? process.cwd(), options.configFlag), source: "flag" });
  return sources;
}

export async function discoverMcpServers(options: McpDiscoveryOptions): Promise<McpDiscovery> {
  const diagnostics: Diagnostic[] = [];
  if (options.noMcp) {
    if (options.configFlag)
      diagnostics.push({ severity: "error", source: "--mcp-config", message: MCP_FLAGS_CONFLICT });
    return { items: [], files: [], diagnostics, disabled: true };
  }
  if (!options.userFile && options.home === undefined)
    throw new TypeError("discoverMcpServers needs `home` or `userFile`");
  const read = options.readFile ?? ((path: string) => fsReadFile(path, "utf8"));
  const merged = new Map<string, McpServerEntry>();
  const add = (entry: McpServerEntry) => {
    const previous = merged.get(entry.name);
    // A repository's file must not replace a server the user configured (and inherit its trust):
    // the user's definition wins and the project one is reported.
    if (previous && UNTRUSTED_SOURCES.has(entry.source) && !UNTRUSTED_SOURCES.has(previous.source)) {
      diagnostics.push({
        severity: "warning",
        source: entry.origin,
        message: `project server "${entry.name}" ignored: your ${previous.source} config (${previous.origin}) defines a server with that name, and a project file cannot replace it`,
      });
      return;
    }
    if (previous) entry.overrides = [...previous.overrides, previous.source];
    merged.delete(entry.name);
    merged.set(entry.name, entry);
  };

  for (const plugin of options.pluginServers ?? []) {
    for (const [name, raw] of Object.entries(plugin.servers))
      add(makeEntry(name, raw, "plugin", `${plugin.plugin} (${plugin.origin})`, plugin.variables));
  }

  const files: McpConfigFileStatus[] = [];
  for (const { path, source } of mcpConfigSources(options)) {
    const loaded = await readConfigFile(path, source, read);
    files.push(loaded.file);
    if (loaded.error)
      diagnostics.push({
        severity: source === "flag" || loaded.file.status === "invalid" ? "error" : "warning",
        source: path,
        message: loaded.error,
      });
    for (const [name, raw] of loaded.servers) add(makeEntry(name, raw, source, path));
  }

  for (const server of options.editorServers ?? []) add(editorEntry(server));

  const items = [...merged.values()].sort((a, b) => SOURCE_ORDER.indexOf(a.source) - SOURCE_ORDER.indexOf(b.source));
  for (const entry of items) {
    for (const error of entry.errors)
      diagnostics.push({ severity: "error", source: entry.origin, message: `server "${entry.name}": ${error}` });
    for (const warning of entry.warnings)
      diagnostics.push({ severity: "warning", source: entry.origin, message: `server "${entry.name}": ${warning}` });
  }
  return { items, files, diagnostics, disabled: false };
}

const SOURCE_ORDER: McpSource[] = ["plugin", "user", "project", "project-root", "flag", "editor"];

type FileLoad = { file: McpConfigFileStatus; servers: Array<[string, unknown]>; error?: string };

async function readConfigFile(
  path: string,
  source: McpSource,
  read: (path: string) => Promise<string>,
): Promise<FileLoad> {
  let text: string;
  try {
    text = await read(path);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    if (missing && source !== "flag") return { file: { path, source, status: "missing", servers: [] }, servers: [] };
    const message = missing ? "file not found" : `cannot read: ${errorMessage(error)}`;
    return {
      file: { path, source, status: missing ? "missing" : "invalid", servers: [], error: message },
      servers: [],
      error: message,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    const message = `invalid JSON: ${errorMessage(error)}`;
    return { file: { path, source, status: "invalid", servers: [], error: message }, servers: [], error: message };
  }
  if (!isRecord(parsed) || !isRecord(parsed.mcpServers)) {
    const message = `expected {"mcpServers": {"<name>": {...}}}`;
    return { file: { path, source, status: "invalid", servers: [], error: message }, servers: [], error: message };
  }
  const servers = Object.entries(parsed.mcpServers);
  const file: McpConfigFileStatus = { path, source, status: "found", servers: servers.map(([name]) => name) };
  if (servers.length === 0) return { file, servers, error: `"mcpServers" is empty` };
  return { file, servers };
}

function makeEntry(
  name: string,
  raw: unknown,
  source: McpSource,
  origin: string,
  variables?: Record<string, string>,
  literal = false,
): McpServerEntry {
  const validation = validateServer(name, raw, { literal });
  return {
    name,
    source,
    origin,
    raw,
    fingerprint: fingerprintServer(raw),
    ...(validation.definition ? { definition: validation.definition } : {}),
    errors: validation.errors,
    warnings: validation.warnings,
    ...(variables ? { variables } : {}),
    ...(literal ? { literal } : {}),
    overrides: [],
  };
}

/**
 * Editor servers arrive already concrete. Names that would be unsafe as tool prefixes or token
 * file names are sanitized instead of rejected: the user cannot easily rename them in the editor.
 */
export function editorEntry(server: EditorMcpServer): McpServerEntry {
  const name = SERVER_NAME.test(server.name) ? server.name : server.name.replace(/[^A-Za-z0-9_-]/g, "_") || "server";
  const raw =
    "url" in server
      ? { type: server.type, url: server.url, headers: { ...(server.headers ?? {}) } }
      : { command: server.command, args: [...(server.args ?? [])], env: { ...(server.env ?? {}) } };
  const entry = makeEntry(name, raw, "editor", "editor", undefined, true);
  if (name !== server.name) entry.warnings.push(`editor server "${server.name}" renamed to "${name}"`);
  return entry;
}
