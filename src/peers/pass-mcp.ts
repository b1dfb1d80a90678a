import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { McpServerDefinition } from "../mcp/index.js";

// `pass_mcp_servers`: the servers this session runs (the editor's, the user's config, plugins', and
// project servers the user trusted; never one waiting for or refused that trust), as ACP's
// session/new lists them for the child. The child then starts and reaches them itself, outside our gate.

export function acpMcpServers(servers: readonly McpServerDefinition[]): acp.McpServer[] {
  const pairs = (record: Record<string, string>) => Object.entries(record).map(([name, value]) => ({ name, value }));
  return servers.map((server) =>
    server.transport === "stdio"
      ? { name: server.name, command: server.command, args: [...server.args], env: pairs(server.env) }
      : { type: server.transport, name: server.name, url: server.url, headers: pairs(server.headers) },
  );
}
