// The editor's `session/new` / `session/load` `mcpServers` carry env and headers as arrays of
// `{name, value}`. This converts that shape (structurally; nothing here imports ACP types) into
// EditorMcpServer. Later duplicates of a variable or header win, as they would in a shell.

import type { EditorMcpServer } from "./types.js";

type NameValue = { name: string; value: string };

/** Structural view of ACP's McpServer union (stdio has no `type`; http/sse carry one). */
export type NameValueMcpServer =
  | { name: string; command: string; args?: readonly string[]; env?: readonly NameValue[]; type?: "stdio" }
  | { name: string; type: "http" | "sse"; url: string; headers?: readonly NameValue[] };

export function editorServersFromNameValueLists(servers: readonly NameValueMcpServer[]): EditorMcpServer[] {
  return servers.map((server) => {
    if ("url" in server) {
      return { name: server.name, type: server.type, url: server.url, headers: toRecord(server.headers) };
    }
    return { name: server.name, command: server.command, args: [...(server.args ?? [])], env: toRecord(server.env) };
  });
}

function toRecord(list: readonly NameValue[] | undefined): Record<string, string> {
  const record: Record<string, string> = {};
  for (const { name, value } of list ?? []) record[name] = value;
  return record;
}
