import * as acp from "@agentclientprotocol/sdk/unstable";
import { Readable } from "node:stream";
import { createAcpServer } from "../acp/server.js";
import type { Logger } from "../util/logger.js";
import type { CliOptions } from "./args.js";
import { createServices } from "./services.js";
import { batchedWritable } from "./stdout-writer.js";

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
  const stream = acp.ndJsonStream(
    batchedWritable(process.stdout),
    Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
  );
  const connection = server.app.connect(stream);
  await connection.closed;
  await server.shutdown();
  return 0;
}
