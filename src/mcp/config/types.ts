// Internal shapes of MCP server configuration. Independent of ACP: acp/ converts the editor's
// `McpServer` list into `EditorMcpServer` and passes it to discovery.

/** Where a server definition came from, lowest priority first in merge order. */
export type McpSource = "plugin" | "user" | "project" | "project-root" | "flag" | "editor";

/** Sources whose servers run only after the human approves them. */
export const UNTRUSTED_SOURCES: ReadonlySet<McpSource> = new Set(["project", "project-root"]);

export type McpTransport = "stdio" | "http" | "sse";

/** `allowedTools` keeps only matching tools; `disabledTools` removes matching tools. */
export type McpToolFilterSpec = { mode: "allow" | "deny"; patterns: string[] };

export type McpStdioDefinition = {
  transport: "stdio";
  command: string;
  args: string[];
  env: Record<string, string>;
};

export type McpRemoteDefinition = {
  transport: "http" | "sse";
  url: string;
  headers: Record<string, string>;
  /** `"oauth"`: authorization code + PKCE, tokens from `deep-acp mcp login NAME`. */
  auth?: "oauth";
};

/** A validated server definition; `${VAR}` placeholders are still unexpanded. */
export type McpServerDefinition = (McpStdioDefinition | McpRemoteDefinition) & {
  name: string;
  filter?: McpToolFilterSpec;
};

/** One merged server: the winning definition for its name, with where it came from. */
export type McpServerEntry = {
  name: string;
  source: McpSource;
  /** File the definition was read from; `editor` for session/new servers; the plugin root for plugins. */
  origin: string;
  /** The definition exactly as written; the trust fingerprint is computed over this. */
  raw: unknown;
  /** `"sha256:..."` of the canonical JSON of `raw`. */
  fingerprint: string;
  /** Absent when the definition is invalid; `errors` then says why. */
  definition?: McpServerDefinition;
  errors: string[];
  warnings: string[];
  /** Values are used verbatim, without `${VAR}` expansion (editor servers). */
  literal?: boolean;
  /** Extra `${VAR}` values that win over the environment (plugins: their root and data dir). */
  variables?: Record<string, string>;
  /** Lower-priority sources this definition replaced. */
  overrides: McpSource[];
};

/**
 * A server the editor passed in `session/new` / `session/load`, with ACP's `{name, value}` arrays
 * already turned into records. Trusted like user config; values are used verbatim (no `${VAR}`).
 */
export type EditorMcpServer =
  | { name: string; type?: "stdio"; command: string; args?: string[]; env?: Record<string, string> }
  | { name: string; type: "http" | "sse"; url: string; headers?: Record<string, string> };

/** Servers a plugin contributes (`.mcp.json` in the plugin root or its manifest's `mcpServers`). */
export type PluginMcpServers = {
  /** Plugin id, shown in `/mcp` and `deep-acp mcp list`. */
  plugin: string;
  /** File or directory the servers were read from. */
  origin: string;
  servers: Record<string, unknown>;
  /** `${VAR}` values for the plugin's definitions (plugin root, data dir, project dir). */
  variables?: Record<string, string>;
};

/** ACP `initialize.agentCapabilities.mcpCapabilities`. */
export const MCP_CAPABILITIES = { http: true, sse: true } as const;
