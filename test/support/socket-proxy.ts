import { createConnection, createServer, type Server, type Socket } from "node:net";
import { rm } from "node:fs/promises";

// A unix-socket proxy in front of the real engine, owned by one test: `cut()` drops every connection
// and stops listening (to the agent, the engine went away), `restore()` listens again. The shared
// engine itself is never touched.
export async function startSocketProxy(listenPath: string, targetPath: string) {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((client) => {
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
