// Building blocks of `deep-acp mcp list`: connect everything once (headless trust rules), report,
// shut down. The CLI prints renderMcpList() of the result.

import type { McpDiscovery } from "./config/discovery.js";
import { createMcpManager, type McpManagerOptions } from "./servers/manager.js";
import type { McpListReport } from "./render.js";
import type { McpTrustResolver } from "./trust/trust.js";

export type McpListOptions = {
  discovery: McpDiscovery;
  /** Created without `decide`: unapproved project servers are listed, not started. */
  trust: McpTrustResolver;
  stateDir: string;
  /** Anything else the manager takes (timeouts, env, disabledServers, spawn, fetch, logger). */
  manager?: Omit<McpManagerOptions, "entries" | "trust" | "stateDir">;
};

export async function collectMcpList(options: McpListOptions): Promise<McpListReport> {
  const { discovery } = options;
  if (discovery.disabled)
    return { files: [], servers: [], diagnostics: discovery.diagnostics, disabled: true, connected: false };
  const manager = createMcpManager({
    connectTimeoutMs: 15_000,
    ...options.manager,
    entries: discovery.items,
    trust: options.trust,
    stateDir: options.stateDir,
  });
  try {
    manager.start();
    await manager.ready();
    return {
      files: discovery.files,
      servers: manager.describe(),
      diagnostics: discovery.diagnostics,
      disabled: false,
      connected: true,
    };
  } finally {
    await manager.close();
  }
}
