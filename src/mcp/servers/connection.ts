// One live connection to one MCP server: transport + SDK Client + its tool list.

import type { FormAnswer } from "../../tools/types.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../../util/logger.js";
import { errorMessage } from "../../util/errors.js";
import { linkedSignal } from "../../util/linked-signal.js";
import { stdioServerEnvironment } from "../config/environment.js";
import { createMcpTokenStore } from "../oauth/oauth-store.js";
import { CONNECT_MODE_REDIRECT, createOAuthProvider, type DeepAcpOAuthProvider } from "../oauth/oauth-provider.js";
import type { McpSdk } from "./sdk.js";
import { createStdioTransport, type SpawnFunction, type StdioTransport } from "./stdio-transport.js";
import type { McpServerDefinition } from "../config/types.js";

export type FetchFunction = (input: string | URL, init?: RequestInit) => Promise<Response>;

export type McpConnectionOptions = {
  /** Definition with `${VAR}`s already expanded. */
  server: McpServerDefinition;
  sdk: McpSdk;
  cwd: string;
  parentEnv: Record<string, string | undefined>;
  clientInfo: { name: string; version: string };
  stateDir: string;
  connectTimeoutMs: number;
  signal?: AbortSignal;
  spawn?: SpawnFunction;
  fetch?: FetchFunction;
  stdinGraceMs?: number;
  termGraceMs?: number;
  logger: Logger;
  /** The server went away on its own (exit, crash, dropped stream). Not called after close(). */
  onLost(reason: string): void;
  /** The server announced a new tool list (already fetched). */
  onToolsChanged(tools: Tool[]): void;
  /** Shows the server's form elicitations to the user; absent = elicitation is not advertised. */
  elicit?: McpElicit;
};

/** Relays one form elicitation; "unsupported" is answered to the server as a decline. */
export type McpElicit = (
  request: { message: string; schema: Record<string, unknown> },
  signal: AbortSignal,
) => Promise<FormAnswer>;

export interface McpConnection {
  readonly client: Client;
  readonly tools: Tool[];
  readonly serverName?: string;
  readonly serverVersion?: string;
  readonly instructions?: string;
  /** stdio only. */
  readonly pid: number | null;
  /** Why the server went away, with exit code and stderr tail for stdio servers. */
  lostReason(): string;
  close(): Promise<void>;
}

/** A failed connection attempt; `unauthenticated` means a login (or new credentials) would fix it. */
export class McpConnectError extends Error {
  override name = "McpConnectError";
  constructor(
    message: string,
    readonly status: "error" | "unauthenticated",
  ) {
    super(message);
  }
}

export async function connectMcpServer(options: McpConnectionOptions): Promise<McpConnection> {
  const { server, sdk, logger } = options;
  const { Client } = await sdk.client();
  const { transport, stdio, oauth } = await openTransport(options);
  const client = new Client(options.clientInfo, { capabilities: options.elicit ? { elicitation: { form: {} } } : {} });
  if (options.elicit) await relayElicitations(client, sdk, options.elicit, logger);
  let closing = false;
  let lost: string | null = null;
  const describeLoss = lossDescriber(stdio);

  let tools: Tool[];
  try {
    tools = await initialize(client, transport, options);
  } catch (error) {
    closing = true;
    await client.close().catch(() => undefined);
    await transport.close().catch(() => undefined);
    throw classifyConnectError(error, server, oauth, describeLoss);
  }

  client.onclose = () => {
    if (closing) return;
    lost = describeLoss("connection closed");
    options.onLost(lost);
  };
  client.onerror = (error) => logger.debug(`transport error: ${errorMessage(error)}`);
  await followToolList(client, options, (next) => {
    tools = next;
  });
  const version = client.getServerVersion();
  const instructions = client.getInstructions();

  return {
    client,
    get tools() {
      return tools;
    },
    ...(version?.name ? { serverName: version.name } : {}),
    ...(version?.version ? { serverVersion: version.version } : {}),
    ...(instructions ? { instructions } : {}),
    get pid() {
      return stdio?.pid ?? null;
    },
    lostReason: () => lost ?? describeLoss("connection closed"),
    async close() {
      closing = true;
      await client.close().catch(() => undefined);
      // Client.close() closes the transport; calling again waits for the stdio shutdown to finish.
      await transport.close().catch(() => undefined);
    },
  };
}

type OpenedTransport = { transport: Transport; stdio?: StdioTransport; oauth?: DeepAcpOAuthProvider };

/** The server's transport: a child process for stdio, else Streamable HTTP or SSE (with OAuth when configured). */
async function openTransport(options: McpConnectionOptions): Promise<OpenedTransport> {
  const { server, sdk, logger } = options;
  if (server.transport === "stdio") {
    const { deserializeMessage } = await sdk.stdio();
    const stdio = createStdioTransport({
      command: server.command,
      args: server.args,
      env: stdioServerEnvironment(options.parentEnv, server.env),
      cwd: options.cwd,
      deserialize: deserializeMessage,
      ...(options.spawn ? { spawn: options.spawn } : {}),
      ...(options.stdinGraceMs !== undefined ? { stdinGraceMs: options.stdinGraceMs } : {}),
      ...(options.termGraceMs !== undefined ? { termGraceMs: options.termGraceMs } : {}),
      onStderr: (text) => logger.debug(`stderr: ${text.trimEnd()}`),
      onInvalidLine: (line) => logger.debug(`ignored non-JSON-RPC stdout line: ${line.slice(0, 200)}`),
    });
    return { transport: stdio, stdio };
  }
  let oauth: DeepAcpOAuthProvider | undefined;
  if (server.auth === "oauth") {
    const store = createMcpTokenStore({ stateDir: options.stateDir, server: server.name, url: server.url });
    const stored = await store.load();
    if (!stored?.tokens) {
      throw new McpConnectError(
        `not logged in: run \`deep-acp mcp login ${server.name}\`, then /reload`,
        "unauthenticated",
      );
    }
    oauth = createOAuthProvider({ store, mode: "connect", redirectUrl: CONNECT_MODE_REDIRECT });
  }
  const common = {
    requestInit: { headers: server.headers },
    ...(oauth ? { authProvider: oauth } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const url = new URL(server.url);
  const transport =
    server.transport === "http"
      ? new (await sdk.http()).StreamableHTTPClientTransport(url, common)
      : new (await sdk.sse()).SSEClientTransport(url, common);
  return { transport, ...(oauth ? { oauth } : {}) };
}

/** Why the server went away: for stdio, how the process ended and the tail of its stderr. */
function lossDescriber(stdio: StdioTransport | undefined): (fallback: string) => string {
  return (fallback) => {
    if (!stdio) return fallback;
    const exit = stdio.exit;
    const how = exit ? (exit.signal ? `killed by ${exit.signal}` : `exited with code ${exit.code}`) : fallback;
    const tail = stdio.stderrTail();
    return tail ? `${how}; stderr: ${lastLines(tail, 5)}` : how;
  };
}

/** MCP initialize and the first tool list, within connectTimeoutMs and options.signal. */
async function initialize(client: Client, transport: Transport, options: McpConnectionOptions): Promise<Tool[]> {
  const timeout = new AbortController();
  const timer = setTimeout(
    () => timeout.abort(new Error(`timed out after ${Math.round(options.connectTimeoutMs / 100) / 10}s`)),
    options.connectTimeoutMs,
  );
  // Not AbortSignal.any: the SDK leaves its listener on this signal, and Node would keep such a
  // signal (and the client, its process and pipes) for as long as options.signal lives.
  const linked = linkedSignal(options.signal, timeout.signal);
  const { signal } = linked;
  const aborted = new Promise<never>((_, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error("connection cancelled"));
    if (signal.aborted) fail();
    else signal.addEventListener("abort", fail, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    return await Promise.race([
      (async () => {
        await client.connect(transport, { signal });
        return listAllTools(client, signal);
      })(),
      aborted,
    ]);
  } finally {
    clearTimeout(timer);
    linked.dispose();
  }
}

/** When the server announces a new tool list, fetch it and pass it on. */
async function followToolList(
  client: Client,
  { sdk, logger, onToolsChanged }: McpConnectionOptions,
  setTools: (tools: Tool[]) => void,
): Promise<void> {
  if (!client.getServerCapabilities()?.tools?.listChanged) return;
  const { ToolListChangedNotificationSchema } = await sdk.types();
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    try {
      const tools = await listAllTools(client);
      setTools(tools);
      onToolsChanged(tools);
    } catch (error) {
      logger.warn(`could not refresh tools after list_changed`, errorMessage(error));
    }
  });
}

async function listAllTools(client: Client, signal?: AbortSignal): Promise<Tool[]> {
  if (!client.getServerCapabilities()?.tools) return [];
  const all: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 100; page++) {
    const result = await client.listTools(cursor ? { cursor } : {}, signal ? { signal } : {});
    all.push(...result.tools);
    cursor = result.nextCursor;
    if (!cursor) break;
  }
  return all;
}

function classifyConnectError(
  error: unknown,
  server: McpServerDefinition,
  oauth: DeepAcpOAuthProvider | undefined,
  describeLoss: (fallback: string) => string,
): McpConnectError {
  if (error instanceof McpConnectError) return error;
  const message = errorMessage(error);
  const name = error instanceof Error ? error.name : "";
  const code = (error as { code?: unknown }).code;
  if (oauth && (oauth.loginRequired || name === "UnauthorizedError" || /unauthorized|invalid_grant/i.test(message))) {
    return new McpConnectError(
      `login expired or refresh failed: run \`deep-acp mcp login ${server.name}\`, then /reload`,
      "unauthenticated",
    );
  }
  if (code === 401 || /\b401\b/.test(message)) {
    return new McpConnectError(
      `server requires authentication (HTTP 401): add "auth": "oauth" or an Authorization header`,
      "unauthenticated",
    );
  }
  if (server.transport === "stdio" && /connection closed/i.test(message)) {
    return new McpConnectError(`server ${describeLoss("closed the connection")} before initializing`, "error");
  }
  return new McpConnectError(message, "error");
}

function lastLines(text: string, count: number): string {
  return text.split(/\r?\n/).filter(Boolean).slice(-count).join(" | ");
}

/** The server's `elicitation/create` (form mode only: URL mode is not advertised) goes to the user. */
async function relayElicitations(client: Client, sdk: McpSdk, elicit: McpElicit, logger: Logger): Promise<void> {
  const { ElicitRequestSchema } = await sdk.types();
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params as { mode?: string; message: string; requestedSchema?: Record<string, unknown> };
    if (params.mode === "url" || !params.requestedSchema) return { action: "decline" as const };
    const answer = await elicit({ message: params.message, schema: params.requestedSchema }, extra.signal);
    if (answer.action === "unsupported") {
      logger.info(`declined the server's question: ${answer.reason}`);
      return { action: "decline" as const };
    }
    return answer.action === "accept"
      ? { action: "accept" as const, content: answer.content as Record<string, string | number | boolean | string[]> }
      : { action: answer.action };
  });
}
