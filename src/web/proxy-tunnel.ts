import { request as httpRequest } from "node:http";
import { isIP, type Socket } from "node:net";
import { connect as tlsConnect } from "node:tls";
import { bareHost } from "./proxy.js";

// Through an HTTP proxy: a CONNECT tunnel, then TLS inside it, checked against the URL's host name.
// Used by web_fetch (to the address it checked) and by the model streams (to the host by name).

/** A refusal or failure with a message meant for the model and the user. */
export class WebFetchError extends Error {}

export function startTls(
  socket: Socket,
  servername: string | undefined,
  host: string,
  signal: AbortSignal,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    // The certificate is checked against the URL's host name, not the address we connected to.
    const secure = tlsConnect({ socket, servername, ALPNProtocols: ["http/1.1"], host });
    const onAbort = () => secure.destroy(signal.reason as Error);
    signal.addEventListener("abort", onAbort, { once: true });
    secure.once("secureConnect", () => {
      signal.removeEventListener("abort", onAbort);
      resolve(secure);
    });
    secure.once("error", (error) => {
      signal.removeEventListener("abort", onAbort);
      reject(
        signal.aborted
          ? signal.reason
          : new WebFetchError(`TLS with ${host} failed: ${error.message}`, { cause: error }),
      );
    });
  });
}

/** An HTTP CONNECT tunnel through the proxy to `host` (web_fetch passes the address it checked). */
export function tunnel(proxy: URL, host: string, port: number, signal: AbortSignal): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const target = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
    const request = httpRequest({
      host: bareHost(proxy.hostname),
      port: Number(proxy.port || 80),
      method: "CONNECT",
      path: target,
      signal,
      headers: { host: target, ...(proxy.username ? { "proxy-authorization": basicAuth(proxy) } : {}) },
    });
    request.once("connect", (response, socket) => {
      if (response.statusCode === 200) resolve(socket);
      else {
        socket.destroy();
        reject(
          new WebFetchError(
            `The proxy ${proxy.host} refused the tunnel: HTTP ${response.statusCode} ${response.statusMessage ?? ""}`.trim(),
          ),
        );
      }
    });
    request.once("error", (error) =>
      reject(
        signal.aborted ? signal.reason : new WebFetchError(`Cannot reach the proxy ${proxy.host}: ${error.message}`),
      ),
    );
    request.end();
  });
}

export function basicAuth(proxy: URL): string {
  return `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`;
}
