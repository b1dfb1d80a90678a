import { randomBytes, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { GATE_TOOLS_SERVER, type GateToolsHost } from "./gate-tools.js";

// The MCP server deep-acp serves one child agent process (gate-tools.ts says why): streamable HTTP
// on 127.0.0.1 at an ephemeral port, stateless (each POST its own MCP server object), one per peer
// connection and closed with it. Each of the child's sessions (one per task) gets a random bearer
// token of its own in the headers it is handed, and the token picks the task whose gate and
// workspace its calls run in; a request without a known token is refused before any MCP is spoken.

export type GateToolsServer = {
  /** Serves `host` under a fresh token; the entry for session/new's mcpServers, and its release. */
  register(host: GateToolsHost): { server: acp.McpServer; release(): void };
  close(): Promise<void>;
};

export async function startGateToolsServer(): Promise<GateToolsServer> {
  // The MCP SDK's server side, loaded only when a child is served (as mcp/servers/sdk.ts loads the client).
  const [{ Server }, { StreamableHTTPServerTransport }, types] = await Promise.all([
    import("@modelcontextprotocol/sdk/server/index.js"),
    import("@modelcontextprotocol/sdk/server/streamableHttp.js"),
    import("@modelcontextprotocol/sdk/types.js"),
  ]);
  const hosts = new Map<string, GateToolsHost>();
  const hostOf = (req: IncomingMessage): GateToolsHost | undefined => {
    const given = Buffer.from(/^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "");
    for (const [token, host] of hosts) {
      const known = Buffer.from(token);
      if (known.length === given.length && timingSafeEqual(known, given)) return host;
    }
    return undefined;
  };
  const refuse = (res: ServerResponse, status: number, message: string) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message }, id: null }));
  };
  const http = createServer((req, res) => {
    const host = hostOf(req);
    if (!host) return refuse(res, 401, "unauthorized");
    if (req.url?.split("?")[0] !== "/mcp") return refuse(res, 404, "not found");
    // Stateless: no standalone stream to open, no session to end.
    if (req.method !== "POST") return refuse(res, 405, "method not allowed");
    const server = new Server({ name: GATE_TOOLS_SERVER, version: "1" }, { capabilities: { tools: {} } });
    server.setRequestHandler(types.ListToolsRequestSchema, () => ({ tools: host.list() }));
    server.setRequestHandler(types.CallToolRequestSchema, (request) =>
      host.call(request.params.name, request.params.arguments ?? {}),
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on("close", () => {
      void transport.close();
      void server.close();
    });
    void server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => (res.headersSent ? res.end() : refuse(res, 500, "internal error")));
  });
  await new Promise<void>((done, fail) => {
    http.once("error", fail);
    http.listen(0, "127.0.0.1", () => done());
  });
  const { port } = http.address() as AddressInfo;
  return {
    register(host) {
      const token = randomBytes(32).toString("hex");
      hosts.set(token, host);
      return {
        server: {
          type: "http",
          name: GATE_TOOLS_SERVER,
          url: `http://127.0.0.1:${port}/mcp`,
          headers: [{ name: "Authorization", value: `Bearer ${token}` }],
        },
        release: () => void hosts.delete(token),
      };
    },
    close: () =>
      new Promise<void>((done) => {
        hosts.clear();
        http.closeAllConnections();
        http.close(() => done());
      }),
  };
}
