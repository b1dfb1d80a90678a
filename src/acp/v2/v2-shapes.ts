import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { wireError } from "../errors.js";

// The v2 shapes of a session's MCP servers and the agent's auth methods, for the v1 agent behind
// the v2 agent (v2-agent.ts) and back.

export function toV1McpServers(servers: readonly v2.McpServer[] | null | undefined): v1.McpServer[] {
  return (servers ?? []).map((server) => {
    const s = server as { type: string; name: string } & Record<string, unknown>;
    if (s.type === "stdio")
      return {
        name: s.name,
        command: s.command as string,
        args: (s.args as string[]) ?? [],
        env: (s.env as v1.EnvVariable[]) ?? [],
      };
    if (s.type === "http")
      return { type: "http", name: s.name, url: s.url as string, headers: (s.headers as v1.HttpHeader[]) ?? [] };
    throw wireError.invalidParams({ type: s.type }, `MCP server "${s.name}": transport "${s.type}" is not supported`);
  });
}

export function toV2AuthMethods(methods: readonly v1.AuthMethod[] | undefined): v2.AuthMethod[] {
  return (methods ?? []).map((m) => {
    const method = m as { type?: string; id: string; name: string; description?: string | null; args?: string[] };
    const common = {
      methodId: method.id,
      name: method.name,
      ...(method.description ? { description: method.description } : {}),
    };
    return (
      method.type === "terminal"
        ? { type: "terminal", ...common, ...(method.args ? { args: method.args } : {}) }
        : { type: "agent", ...common }
    ) as v2.AuthMethod;
  });
}
