// A real HTTP proxy on 127.0.0.1 for tests: CONNECT tunnels (HTTPS) and absolute-URI requests
// (plain HTTP), every host name sent to 127.0.0.1, so a test can use names like model.test that no
// resolver knows. It records what it was asked, the way a proxy log would show it.
import { createServer, request, type IncomingHttpHeaders } from "node:http";
import { connect, type AddressInfo } from "node:net";
import type { Duplex } from "node:stream";

export type TestProxy = {
  url: string;
  /** "CONNECT host:port" or "METHOD absolute-url", in arrival order. */
  seen: string[];
  /** The headers of each request, same order as `seen`. */
  headers: IncomingHttpHeaders[];
  close(): Promise<void>;
};

export async function startTestProxy(): Promise<TestProxy> {
  const seen: string[] = [];
  const headers: IncomingHttpHeaders[] = [];
  // Tunnels outlive their requests (clients keep connections alive); close() ends both sides.
  const tunnels = new Set<Duplex>();
  const server = createServer((incoming, outgoing) => {
    seen.push(`${incoming.method} ${incoming.url}`);
    headers.push(incoming.headers);
    const target = new URL(String(incoming.url));
    const upstream = request(
      {
        host: "127.0.0.1",
        port: target.port,
        method: incoming.method,
        path: target.pathname + target.search,
        headers: incoming.headers,
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    upstream.on("error", () => outgoing.destroy());
    incoming.pipe(upstream);
  });
  server.on("connect", (incoming, client, head) => {
    seen.push(`CONNECT ${incoming.url}`);
    headers.push(incoming.headers);
    const port = Number(String(incoming.url).split(":").at(-1));
    const upstream = connect(port, "127.0.0.1", () => {
      tunnels.add(client).add(upstream);
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    upstream.on("error", () => client.destroy());
    client.on("error", () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    headers,
    close: async () => {
      for (const socket of tunnels) socket.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
