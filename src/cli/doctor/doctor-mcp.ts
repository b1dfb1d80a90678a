import {
  createMcpTrustResolver,
  createMcpTrustStore,
  discoverMcpServers,
  type McpServerEntry,
  type PluginMcpServers,
} from "../../mcp/index.js";
import type { DoctorMcpFacts, DoctorMcpServer } from "./doctor-types.js";

export type McpFactsOptions = {
  cwd: string;
  home: string;
  projectRoot: string;
  stateDir: string;
  /** `--mcp-config`. */
  configFlag?: string;
  noMcp: boolean;
  trustProjectMcp: boolean;
  pluginServers: readonly PluginMcpServers[];
  /** config.toml `[mcp].disabled_servers`. */
  disabledServers: readonly string[];
  /** config.toml `[mcp] project_env` (approvals are bound to it). */
  projectEnv?: readonly string[];
};

/** Every MCP config level and the merged servers with their trust state. Nothing is started or contacted. */
export async function collectMcpFacts(options: McpFactsOptions): Promise<DoctorMcpFacts> {
  const discovery = await discoverMcpServers({
    projectRoot: options.projectRoot,
    home: options.home,
    cwd: options.cwd,
    noMcp: options.noMcp,
    pluginServers: options.pluginServers,
    ...(options.configFlag !== undefined ? { configFlag: options.configFlag } : {}),
  });
  // Without `decide`, the resolver only reports; check() never writes the trust store.
  const trust = createMcpTrustResolver({
    store: createMcpTrustStore({ stateDir: options.stateDir }),
    projectRoot: options.projectRoot,
    trustProjectServers: options.trustProjectMcp,
    envPolicy: { projectEnv: options.projectEnv ?? [] },
  });
  const servers: DoctorMcpServer[] = [];
  for (const entry of discovery.items) {
    const verdict = await trust.check(entry);
    servers.push({
      name: entry.name,
      source: entry.source,
      origin: entry.origin,
      ...describeTarget(entry),
      ...(verdict.state === "trusted" ? {} : { trust: verdict }),
      disabled: options.disabledServers.includes(entry.name),
      errors: entry.errors,
      warnings: entry.warnings,
    });
  }
  return {
    disabled: discovery.disabled,
    files: discovery.files.map((file) => ({
      path: file.path,
      state: file.status,
      level: file.source,
      servers: file.servers,
      ...(file.error !== undefined ? { detail: file.error } : {}),
    })),
    servers,
    diagnostics: discovery.diagnostics,
  };
}

function describeTarget(entry: McpServerEntry): Pick<DoctorMcpServer, "transport" | "target"> {
  const definition = entry.definition;
  if (!definition) return { transport: "invalid" };
  if (definition.transport === "stdio")
    return { transport: "stdio", target: [definition.command, ...definition.args].join(" ") };
  return { transport: definition.transport, target: definition.url };
}
