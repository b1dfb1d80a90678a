// The MCP server deep-acp hands a child agent (claude-agent-acp) in place of its own change tools:
// only a request with the bearer token of a registered task reaches that task's tools, through the
// MCP SDK's own client; a released task's token and a closed server reach nothing.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterEach, describe, expect, it } from "vitest";
import { startGateToolsServer, type GateToolsServer } from "../../../src/peers/gate-tools-server.js";
import type { GateToolsHost } from "../../../src/peers/gate-tools.js";

const host = (label: string): GateToolsHost & { calls: unknown[] } => {
  const calls: unknown[] = [];
  return {
    calls,
    list: () => [{ name: "write_file", description: label, inputSchema: { type: "object" }, _meta: {} }],
    call: async (name, args) => {
      calls.push([name, args]);
      return { content: [{ type: "text", text: `${label} ran ${name}` }] };
    },
  };
};
const headersOf = (server: { headers?: Array<{ name: string; value: string }> }) =>
  Object.fromEntries((server.headers ?? []).map((h) => [h.name, h.value]));

let server: GateToolsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function connect(url: string, headers: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe("the gate tools server", () => {
  it("serves each task's tools under its own token and refuses requests without one", async () => {
    server = await startGateToolsServer();
    const first = host("first");
    const second = host("second");
    const a = server.register(first);
    const b = server.register(second);
    expect(a.server).toMatchObject({
      type: "http",
      name: "deep-acp",
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/),
    });
    const url = (a.server as { url: string }).url;

    const client = await connect(url, headersOf(a.server as never));
    expect((await client.listTools()).tools.map((t) => [t.name, t.description])).toEqual([["write_file", "first"]]);
    const result = await client.callTool({ name: "write_file", arguments: { file_path: "/x", content: "y" } });
    expect(result.content).toEqual([{ type: "text", text: "first ran write_file" }]);
    expect(first.calls).toEqual([["write_file", { file_path: "/x", content: "y" }]]);
    expect(second.calls).toEqual([]);
    await client.close();

    const init = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
    };
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify(init),
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ Authorization: "Bearer guessed" })).status).toBe(401);
    expect((await post(headersOf(b.server as never))).status).toBe(200);
    b.release();
    expect((await post(headersOf(b.server as never))).status).toBe(401);

    await server.close();
    server = undefined;
    await expect(post(headersOf(a.server as never))).rejects.toThrow();
  });
});
