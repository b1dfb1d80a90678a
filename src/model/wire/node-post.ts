import { request as httpRequest, type ClientRequest, type IncomingMessage, type OutgoingHttpHeaders } from "node:http";
import { request as httpsRequest } from "node:https";
import { bareHost, type ProxyEnv } from "../../web/proxy.js";
import { basicAuth } from "../../web/proxy-tunnel.js";
import { modelProxyFor, tunnellingAgentFor } from "./proxy-route.js";
import type { ResponseHeaders } from "../limits.js";
import type { ByteReader, ByteReadResult } from "./sse.js";

// The model streams' POST over node:http(s), used when no fetch is injected. Global fetch costs
// about 12% more CPU per streamed answer (undici's HTTP parser in WebAssembly, then a web
// ReadableStream fed from a Node stream, one ArrayBuffer transfer and one promise per read):
// measured with bench/thin-agent.mjs written both ways. Node's own client reads with the native
// HTTP parser, and we read the socket's buffer directly.

/** The part of a fetch Response that postForStream uses. */
export type PostResponse = {
  status: number;
  headers: ResponseHeaders;
  text(): Promise<string>;
  /** The body's reader; call once. */
  reader(): ByteReader;
};

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([307, 308]);

/**
 * POSTs `body` to `url`. Like fetch, follows 307/308 redirects (the only ones that keep a POST),
 * but only on the same origin: the headers carry the API key, and a redirect elsewhere must not
 * take it along. Rejects with the signal's reason once it aborts, before or while the body is read.
 * HTTPS_PROXY, HTTP_PROXY and NO_PROXY in `env` are honoured as curl reads them (see web/proxy.ts).
 */
export async function postWithNode(
  url: string,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  env: ProxyEnv,
): Promise<PostResponse> {
  const first = new URL(url);
  let target = first;
  for (let redirects = 0; ; redirects++) {
    const response = await send(target, headers, body, signal, env);
    const location = response.headers.location;
    if (!REDIRECTS.has(response.statusCode ?? 0) || !location || redirects === MAX_REDIRECTS)
      return wrap(response, signal);
    const next = new URL(location, target);
    if (next.origin !== first.origin) return wrap(response, signal);
    response.destroy();
    target = next;
  }
}

function send(
  url: URL,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  env: ProxyEnv,
): Promise<IncomingMessage> {
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return Promise.reject(new Error(`unsupported protocol ${url.protocol} in ${url.href}`));
  if (signal.aborted) return Promise.reject(signal.reason);
  const all = { "user-agent": "deep-acp", ...headers, "content-length": String(Buffer.byteLength(body)) };
  return new Promise((resolve, reject) => {
    const request = openRequest(url, all, env);
    // Kept until the exchange is over: an abort while the body streams must close the connection.
    const onAbort = () => request.destroy(signal.reason instanceof Error ? signal.reason : new Error("aborted"));
    signal.addEventListener("abort", onAbort, { once: true });
    request.once("close", () => signal.removeEventListener("abort", onAbort));
    request.once("response", resolve);
    // `on`, not `once`: after the response has started, a socket error is emitted on the request too
    // (and may be emitted again); an 'error' nobody listens to would end the process.
    request.on("error", (error) => reject(signal.aborted ? signal.reason : error));
    request.end(body);
  });
}

/** The POST, direct or through the environment's proxy (see proxy-route.ts). */
function openRequest(url: URL, headers: OutgoingHttpHeaders, env: ProxyEnv): ClientRequest {
  const proxy = modelProxyFor(url, env);
  if (!proxy) return (url.protocol === "https:" ? httpsRequest : httpRequest)(url, { method: "POST", headers });
  if (url.protocol === "http:") {
    // Plain HTTP through a proxy: the request line names the whole URL.
    const auth = proxy.username ? { "proxy-authorization": basicAuth(proxy) } : {};
    return httpRequest({
      method: "POST",
      host: bareHost(proxy.hostname),
      port: Number(proxy.port || 80),
      path: url.href,
      headers: { ...headers, host: url.host, ...auth },
    });
  }
  // HTTPS through a proxy: CONNECT tunnels, kept alive between requests like direct connections.
  return httpsRequest(url, { method: "POST", headers, agent: tunnellingAgentFor(proxy) });
}

function wrap(response: IncomingMessage, signal: AbortSignal): PostResponse {
  return {
    status: response.statusCode ?? 0,
    headers: headersOf(response),
    text: async () => {
      const parts: Buffer[] = [];
      for await (const part of response) parts.push(part as Buffer);
      return Buffer.concat(parts).toString("utf8");
    },
    reader: () => readerOf(response, signal),
  };
}

/**
 * The response's headers as `Headers.get` reads them (names in any case; repeated ones joined with
 * ", "), without a `Headers`: in Node 20 the first one made loads all of undici (~25-50 ms of CPU),
 * which landed between a cold start's first model response and its first streamed word.
 */
function headersOf(response: IncomingMessage): ResponseHeaders {
  return {
    get: (name) => {
      const value = response.headers[name.toLowerCase()];
      return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

type Waiter = {
  resolve: (result: ByteReadResult) => void;
  reject: (error: unknown) => void;
};

const DONE: ByteReadResult = { done: true, value: undefined };

/** Reads what the socket has buffered, all of it per call, as one chunk. */
function readerOf(response: IncomingMessage, signal: AbortSignal): ByteReader {
  let waiter: Waiter | undefined;
  let ended = false;
  let failure: unknown;
  const settle = () => {
    if (waiter === undefined) return;
    const { resolve, reject } = waiter;
    if (failure !== undefined) {
      waiter = undefined;
      return reject(failure);
    }
    const chunk = response.read() as Buffer | null;
    if (chunk !== null) {
      waiter = undefined;
      resolve({ done: false, value: chunk });
    } else if (ended) {
      waiter = undefined;
      resolve(DONE);
    }
  };
  const fail = (error: unknown) => {
    if (failure === undefined) failure = signal.aborted ? signal.reason : error;
    settle();
  };
  response.on("readable", settle);
  response.once("end", () => {
    ended = true;
    settle();
  });
  response.on("error", fail);
  response.once("close", () => {
    if (!ended) fail(new Error("the connection closed before the response ended"));
  });
  return {
    read() {
      if (failure !== undefined) return Promise.reject(failure);
      const chunk = response.read() as Buffer | null;
      if (chunk !== null) return Promise.resolve({ done: false, value: chunk });
      if (ended) return Promise.resolve(DONE);
      return new Promise((resolve, reject) => (waiter = { resolve, reject }));
    },
    cancel() {
      response.destroy();
      return Promise.resolve();
    },
    releaseLock() {},
  };
}
