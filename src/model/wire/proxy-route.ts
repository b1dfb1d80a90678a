import { Agent as HttpsAgent, type AgentOptions, type RequestOptions } from "node:https";
import { isIP } from "node:net";
import type { Duplex } from "node:stream";
import { bareHost, proxyFor, type ProxyEnv } from "../../web/proxy.js";
import { startTls, tunnel } from "../../web/proxy-tunnel.js";

// Which proxy a model request goes through: HTTPS_PROXY / HTTP_PROXY / NO_PROXY as curl reads them
// (web/proxy.ts), except that a model server on this machine is always asked directly: a proxy cannot
// reach our loopback, and users with a global proxy run Ollama or LM Studio on localhost.

export function modelProxyFor(url: URL, env: ProxyEnv): URL | undefined {
  return isLoopback(url.hostname) ? undefined : proxyFor(url, env);
}

function isLoopback(hostname: string): boolean {
  const host = bareHost(hostname).toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || host === "::1") return true;
  return isIP(host) === 4 && host.startsWith("127.");
}

const agents = new Map<string, TunnellingAgent>();

/** One agent per proxy, so tunnels are reused between requests like direct connections. */
export function tunnellingAgentFor(proxy: URL): TunnellingAgent {
  let agent = agents.get(proxy.href);
  if (!agent) agents.set(proxy.href, (agent = new TunnellingAgent(proxy)));
  return agent;
}

/**
 * An https.Agent whose connections are CONNECT tunnels through `proxy`, TLS checked against the
 * target's own name: node-post's requests use it, and the AWS SDK's handler, which takes an agent.
 */
export class TunnellingAgent extends HttpsAgent {
  constructor(
    private readonly proxy: URL,
    options: AgentOptions = { keepAlive: true },
  ) {
    super(options);
  }

  // Node's Agent takes a connection handed over later through the callback when this returns nothing.
  override createConnection(
    options: RequestOptions,
    callback?: (error: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const host = bareHost(options.hostname ?? options.host ?? "localhost");
    const port = Number(options.port ?? 443);
    const servername = isIP(host) === 0 ? options.servername || host : undefined;
    // The request's own abort destroys the socket this hands over; a tunnel still being opened then
    // finishes and goes back to the pool.
    const never = new AbortController().signal;
    tunnel(this.proxy, host, port, never)
      .then((socket) => startTls(socket, servername, host, never))
      .then(
        (secure) => callback?.(null, secure),
        (error: Error) => callback?.(error, null as never),
      );
    return undefined;
  }
}
