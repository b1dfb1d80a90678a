import { createAcpServer } from "../acp/server.js";
import { stdioStream } from "../acp/stdio.js";
import type { Logger } from "../util/logger.js";
import type { CliOptions } from "./args.js";
import { createServices } from "./services.js";

/** Serves ACP on stdio until stdin closes, then closes every session and exits 0. */
export async function serve(cli: CliOptions, version: string, logger: Logger): Promise<number> {
  if (process.stdin.isTTY) {
    process.stderr.write(
      "deep-acp is waiting for an editor to speak ACP (JSON-RPC) on stdin.\n" +
        "Add it to your editor (see README), or try it from a shell with: deep-acp -n \"explain this project\"\n",
    );
  }
  const services = createServices({ cli, env: process.env, logger });
  const server = createAcpServer({ services, version, logger });
  const connection = server.app.connect(stdioStream(process.stdin, process.stdout));
  await connection.closed;
  await server.shutdown();
  return 0;
}
