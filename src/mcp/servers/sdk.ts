// The MCP SDK costs tens of milliseconds to import, so it is loaded only when a session actually
// has servers to connect, and each transport only when a server uses it.

type ClientModule = typeof import("@modelcontextprotocol/sdk/client/index.js");
type StdioModule = typeof import("@modelcontextprotocol/sdk/shared/stdio.js");
type HttpModule = typeof import("@modelcontextprotocol/sdk/client/streamableHttp.js");
type SseModule = typeof import("@modelcontextprotocol/sdk/client/sse.js");
type AuthModule = typeof import("@modelcontextprotocol/sdk/client/auth.js");
type TypesModule = typeof import("@modelcontextprotocol/sdk/types.js");

export interface McpSdk {
  client(): Promise<ClientModule>;
  stdio(): Promise<StdioModule>;
  http(): Promise<HttpModule>;
  sse(): Promise<SseModule>;
  auth(): Promise<AuthModule>;
  types(): Promise<TypesModule>;
}

function once<T>(load: () => Promise<T>): () => Promise<T> {
  let promise: Promise<T> | undefined;
  return () => (promise ??= load());
}

export const defaultMcpSdk: McpSdk = {
  client: once(() => import("@modelcontextprotocol/sdk/client/index.js")),
  stdio: once(() => import("@modelcontextprotocol/sdk/shared/stdio.js")),
  http: once(() => import("@modelcontextprotocol/sdk/client/streamableHttp.js")),
  sse: once(() => import("@modelcontextprotocol/sdk/client/sse.js")),
  auth: once(() => import("@modelcontextprotocol/sdk/client/auth.js")),
  types: once(() => import("@modelcontextprotocol/sdk/types.js")),
};
