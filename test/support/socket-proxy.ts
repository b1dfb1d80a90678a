import { createConnection, createServer, type AddressInfo, type Server, type Socket } from "node:net";
import { rm } from "node:fs/promises";

// Proxies in front of the real engine's unix socket, owned by one test; the shared engine itself is
// never touched.

function proxyServer(targetPath: string, sockets: Set<Socket>, onConnection = () => {}): Server {
  return createServer((client) => {
    onConnection();
    const upstream = createConnection(targetPath);
    for (const end of [client, upstream]) {
      sockets.add(end);
      end.on("close", () => sockets.delete(end));
      end.on("error", () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
}

/** On a unix socket: `cut()` drops every connection and stops listening (to the agent, the engine went away), `restore()` listens again. */
export async function startSocketProxy(listenPath: string, targetPath: string) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = proxyServer(targetPath, sockets);
      s.once("error", reject);
      s.listen(listenPath, () => resolve());
      server = s;
    });
  await rm(listenPath, { force: true });
  await listen();
  return {
    path: listenPath,
    async cut() {
      const s = server;
      server = undefined;
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => (s ? s.close(() => resolve()) : resolve()));
      await rm(listenPath, { force: true });
    },
    async restore() {
      await listen();
    },
    async stop() {
      await this.cut();
    },
  };
}

/** On 127.0.0.1 and a free port: the engine as `DOCKER_HOST=tcp://127.0.0.1:PORT` reaches it. */
export async function startTcpProxy(targetPath: string) {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = proxyServer(targetPath, sockets, () => connections++);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `tcp://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** How many connections came through (the engine was reached here, not by another way). */
    get connections() {
      return connections;
    },
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
