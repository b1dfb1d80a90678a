import { request as httpRequest, type IncomingMessage } from "node:http";
import { lookup as dnsLookup } from "node:dns/promises";
import { connect as netConnect, isIP, type Socket } from "node:net";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { Readable } from "node:stream";
import type { AddressPolicy } from "./address-policy.js";
import { bareHost, proxyFor, type ProxyEnv } from "./proxy.js";
import { basicAuth, startTls, tunnel, WebFetchError } from "./proxy-tunnel.js";

// One GET with redirects, where every hop is checked before a byte is sent: the host is resolved
// once, each address is checked against the policy, and the socket is opened to that checked
// address (never resolved a second time, so DNS rebinding cannot swap it). Through a proxy the
// CONNECT tunnel also names the checked address.

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

export type HttpGetOptions = {
  policy: AddressPolicy;
  /** Bytes of (decompressed) body kept; the rest is not read. */
  maxBytes: number;
  maxRedirects: number;
  signal: AbortSignal;
  env: ProxyEnv;
  userAgent: string;
  /** Default: the system resolver (getaddrinfo, like every other program on the machine). */
  resolve?: Resolver;
};

export type HttpGetResult = {
  url: string;
  status: number;
  statusText: string;
  contentType: string;
  body: Buffer;
  truncated: boolean;
  redirects: string[];
};

export { WebFetchError };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `url`, following redirects on its host only: the gate approved that host, so a redirect to
 * another one is refused with a message naming it (the model fetching it is a new, gated call).
 */
export async function httpGet(url: string, options: HttpGetOptions): Promise<HttpGetResult> {
  const redirects: string[] = [];
  const approved = parseHttpUrl(url);
  let current = approved;
  for (;;) {
    const response = await getOnce(current, options);
    const location = response.headers.location;
    if (REDIRECTS.has(response.statusCode ?? 0) && location) {
      response.destroy();
      if (redirects.length >= options.maxRedirects)
        throw new WebFetchError(`Too many redirects (more than ${options.maxRedirects}); last one to ${location}`);
      let next: URL;
      try {
        next = parseHttpUrl(new URL(location, current).href);
      } catch (error) {
        throw new WebFetchError(`Redirect to an unusable location "${location}": ${(error as Error).message}`);
      }
      if (next.host !== approved.host) {
        // The user approved one host (the gate asks per host); another one is the model's next call,
        // asked about again. A literal address is still refused as such when the policy refuses it.
        if (isIP(bareHost(next.hostname)) !== 0) await checkedAddress(bareHost(next.hostname), options);
        throw new WebFetchError(
          `Redirected to ${next.href}, on another host than ${approved.host}; it was not fetched. Call web_fetch with that URL to fetch it (a new host needs the user's approval).`,
        );
      }
      redirects.push(next.href);
      current = next;
      continue;
    }
    const { body, truncated } = await readBody(response, options.maxBytes, options.signal);
    return {
      url: current.href,
      status: response.statusCode ?? 0,
      statusText: response.statusMessage ?? "",
      contentType: String(response.headers["content-type"] ?? ""),
      body,
      truncated,
      redirects,
    };
  }
}

export function parseHttpUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new WebFetchError(`"${text}" is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new WebFetchError(`Only http and https URLs can be fetched, not ${url.protocol}`);
  if (url.username || url.password) throw new WebFetchError("URLs with credentials in them are not fetched");
  return url;
}

async function getOnce(url: URL, options: HttpGetOptions): Promise<IncomingMessage> {
  const host = bareHost(url.hostname);
  const port = Number(url.port || (url.protocol === "https:" ? 443 : 80));
  const proxy = proxyFor(url, options.env);
  const address = await checkedAddress(host, options);
  let socket: Socket;
  let path = `${url.pathname}${url.search}`;
  if (proxy && url.protocol === "http:") {
    // Plain HTTP through a proxy: the request line names the checked address, Host the real name.
    socket = await openSocket(bareHost(proxy.hostname), Number(proxy.port || 80), options.signal);
    path = `http://${isIP(address) === 6 ? `[${address}]` : address}:${port}${path}`;
  } else if (proxy) {
    socket = await tunnel(proxy, address, port, options.signal);
  } else {
    socket = await openSocket(address, port, options.signal);
  }
  if (url.protocol === "https:")
    socket = await startTls(socket, isIP(host) === 0 ? host : undefined, host, options.signal);
  return new Promise<IncomingMessage>((resolve, reject) => {
    const request = httpRequest({
      createConnection: () => socket,
      method: "GET",
      path,
      signal: options.signal,
      headers: {
        host: url.host,
        "user-agent": options.userAgent,
        accept: "text/markdown, text/html;q=0.9, text/plain;q=0.8, application/json;q=0.8, */*;q=0.5",
        "accept-encoding": "gzip, deflate, br",
        connection: "close",
        ...(proxy && url.protocol === "http:" && proxy.username ? { "proxy-authorization": basicAuth(proxy) } : {}),
      },
    });
    request.on("response", resolve);
    request.on("error", (error) =>
      reject(
        options.signal.aborted
          ? options.signal.reason
          : new WebFetchError(`Request to ${url.host} failed: ${error.message}`),
      ),
    );
    request.end();
  });
}

/** Resolves once and returns the first address the policy allows, or explains the refusal. */
async function checkedAddress(host: string, options: HttpGetOptions): Promise<string> {
  const literal = isIP(host) !== 0;
  let addresses: Array<{ address: string; family: number }>;
  if (literal) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await (options.resolve ?? systemResolve)(host);
    } catch (error) {
      throw new WebFetchError(
        `Cannot resolve ${host}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  const refusals: string[] = [];
  for (const { address } of addresses) {
    const verdict = options.policy.check(address);
    if (verdict.allowed) return address;
    refusals.push(verdict.reason);
  }
  const where = literal ? host : `${host} (resolves to ${addresses.map((a) => a.address).join(", ")})`;
  throw new WebFetchError(
    `Refused to fetch ${where}: ${refusals[0] ?? "no address"}. Local and private networks are not fetched unless config.toml lists them in [web_fetch] allow_private_networks.`,
  );
}

const systemResolve: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

function openSocket(host: string, port: number, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host, port });
    const onAbort = () => socket.destroy(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    socket.once("connect", () => {
      signal.removeEventListener("abort", onAbort);
      resolve(socket);
    });
    socket.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(signal.aborted ? signal.reason : new WebFetchError(`Cannot connect to ${host}:${port}: ${error.message}`));
    });
  });
}

/** Reads at most `maxBytes` of the decoded body; a compressed bomb stops at the same limit. */
async function readBody(
  response: IncomingMessage,
  maxBytes: number,
  signal: AbortSignal,
): Promise<{ body: Buffer; truncated: boolean }> {
  const encoding = String(response.headers["content-encoding"] ?? "").toLowerCase();
  let stream: Readable = response;
  if (encoding === "gzip" || encoding === "x-gzip") stream = response.pipe(createGunzip());
  else if (encoding === "deflate") stream = response.pipe(createInflate());
  else if (encoding === "br") stream = response.pipe(createBrotliDecompress());
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  try {
    for await (const chunk of stream) {
      const buffer = chunk as Buffer;
      if (size + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - size));
        size = maxBytes;
        truncated = true;
        break;
      }
      chunks.push(buffer);
      size += buffer.length;
    }
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    throw new WebFetchError(`Reading the response failed: ${(error as Error).message}`);
  } finally {
    response.destroy();
    if (stream !== response) stream.destroy();
  }
  return { body: Buffer.concat(chunks, size), truncated };
}
