// `deep-acp mcp login NAME` / `logout NAME`. Login obeys project trust: an unapproved project
// server could otherwise use the login to send ${VAR} secrets in its headers to any URL.

import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../util/logger.js";
import { silentLogger } from "../util/logger.js";
import type { FetchFunction } from "./servers/connection.js";
import { interpolationLookup, type McpEnvPolicy } from "./config/environment.js";
import { resolveServerDefinition } from "./config/interpolate.js";
import { createMcpTokenStore, tokenDirectory } from "./oauth/oauth-store.js";
import { createOAuthProvider } from "./oauth/oauth-provider.js";
import { startRedirectListener } from "./oauth/redirect-listener.js";
import { defaultMcpSdk, type McpSdk } from "./servers/sdk.js";
import type { McpTrustResolver } from "./trust/trust.js";
import type { McpServerEntry } from "./config/types.js";

export class McpLoginError extends Error {
  override name = "McpLoginError";
}

export type McpLoginOptions = {
  /** Merged servers (discoverMcpServers().items). */
  entries: readonly McpServerEntry[];
  /** Project servers must be approved (or trusted by flag, or approved through `decide`). */
  trust: McpTrustResolver;
  stateDir: string;
  /** Shows the authorization URL: open a browser, print it. */
  openUrl: (url: string) => void | Promise<void>;
  /** Default: process.env. */
  env?: Record<string, string | undefined>;
  /** config.toml `[mcp] project_env`. Default: base variables only. */
  envPolicy?: McpEnvPolicy;
  /** Cancels the wait for the browser. */
  signal?: AbortSignal;
  /** How long to wait for the browser to come back. Default: 300000 ms. */
  timeoutMs?: number;
  /** Default: global fetch. */
  fetch?: FetchFunction;
  /** Default: dynamic imports of @modelcontextprotocol/sdk. */
  sdk?: McpSdk;
  /** Default: silent. */
  logger?: Logger;
};

export type McpLoginResult = { server: string; url: string; tokenFile: string };

export async function mcpLogin(name: string, options: McpLoginOptions): Promise<McpLoginResult> {
  const logger = options.logger ?? silentLogger;
  const entry = options.entries.find((candidate) => candidate.name === name);
  if (!entry) {
    const known = options.entries.map((candidate) => candidate.name).join(", ") || "none";
    throw new McpLoginError(`no MCP server named "${name}" (configured: ${known})`);
  }
  const definition = entry.definition;
  if (!definition) throw new McpLoginError(`server "${name}" has an invalid definition: ${entry.errors.join("; ")}`);
  if (definition.transport === "stdio")
    throw new McpLoginError(`server "${name}" is a stdio server; login is for http/sse servers with "auth": "oauth"`);
  if (definition.auth !== "oauth")
    throw new McpLoginError(`server "${name}" does not use OAuth (add "auth": "oauth" to its definition)`);

  const verdict = await options.trust.resolve(entry, options.signal);
  if (!verdict.allowed) throw new McpLoginError(`project server "${name}" is not approved (${verdict.reason})`);

  let url = definition.url;
  if (!entry.literal) {
    const lookup = interpolationLookup(entry, options.env ?? process.env, options.envPolicy ?? { projectEnv: [] });
    if (!lookup.ok) throw new McpLoginError(`server "${name}": ${lookup.error}`);
    const resolved = resolveServerDefinition(definition, lookup.lookup);
    if (!resolved.ok) throw new McpLoginError(`server "${name}": ${resolved.error}`);
    if (resolved.server.transport === "stdio") throw new McpLoginError(`server "${name}" is not remote`);
    url = resolved.server.url;
  }

  const sdk = options.sdk ?? defaultMcpSdk;
  const { auth } = await sdk.auth();
  const store = createMcpTokenStore({ stateDir: options.stateDir, server: name, url });
  const listener = await startRedirectListener();
  try {
    const provider = createOAuthProvider({ store, mode: "login", redirectUrl: listener.url, openUrl: options.openUrl });
    const serverUrl = new URL(url);
    const fetchFn = options.fetch;
    const first = await auth(provider, { serverUrl, ...(fetchFn ? { fetchFn } : {}) });
    if (first !== "AUTHORIZED") {
      logger.info(`waiting for the browser on ${listener.url}`);
      const callback = await listener.wait(options.timeoutMs ?? 300_000, options.signal);
      if (callback.state !== provider.lastState)
        throw new McpLoginError("authorization response has the wrong state parameter (possible CSRF); try again");
      const second = await auth(provider, {
        serverUrl,
        authorizationCode: callback.code,
        ...(fetchFn ? { fetchFn } : {}),
      });
      if (second !== "AUTHORIZED") throw new McpLoginError("the authorization server did not issue tokens");
    }
    return { server: name, url, tokenFile: store.path };
  } finally {
    await listener.close();
  }
}

/**
 * Deletes every token file of server `name`, whatever URL it was for, so logout works even when
 * the server was removed from the config or its URL needs a variable that is not set.
 */
export async function mcpLogout(name: string, options: { stateDir: string }): Promise<{ removed: string[] }> {
  const dir = tokenDirectory(options.stateDir);
  let files: string[];
  try {
    files = await readdir(dir);
  } catch {
    return { removed: [] };
  }
  const mine = new RegExp(`^${name.replace(/[^A-Za-z0-9_-]/g, "")}-[0-9a-f]{16}\\.json$`);
  const removed = files.filter((file) => mine.test(file)).map((file) => join(dir, file));
  await Promise.all(removed.map((file) => rm(file, { force: true })));
  return { removed };
}
