import { createAcpServer } from "../acp/server.js";
import { connectVersioned } from "../acp/wire/protocol-select.js";
import type { EarlyPreface } from "../acp/early/early-handshake.js";
import { createStdioTransport } from "../acp/wire/stdio.js";
import type { Logger } from "../util/logger.js";
import { killTrackedGroups } from "../util/process-groups.js";
import type { SessionServices } from "../session/index.js";
import type { CliOptions } from "./args/args.js";

/** How long cancelled turns get to end on their own (their commands got SIGTERM) before SIGKILL. */
const TERM_GRACE_MS = 400;
/** How long requests in flight then get to be answered. */
const ANSWER_GRACE_MS = 500;
/** How long closing sessions (MCP servers, session logs) may take. */
const CLOSE_GRACE_MS = 600;
/** Exit no later than this after shutdown starts, whatever still runs. */
const EXIT_DEADLINE_MS = 1900;

const SIGNALS = { SIGHUP: 1, SIGINT: 2, SIGTERM: 15 } as const;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/**
 * Serves ACP on stdio. Stdin EOF, SIGTERM, SIGINT and SIGHUP all shut down the same way: stop
 * reading, cancel running turns, give open requests a moment to be answered (the rest are answered
 * with an error), close every session (processes, MCP servers, logs), and exit: 0 for EOF, 128+n
 * for signal n. A second signal exits at once.
 */
export async function serve(
  cli: CliOptions,
  version: string,
  logger: Logger,
  services: SessionServices,
  early?: { handover(): EarlyPreface },
): Promise<number> {
  if (process.stdin.isTTY) {
    process.stderr.write(
      "deep-acp is waiting for an editor to speak ACP (JSON-RPC) on stdin.\n" +
        'Add it to your editor (see README), or try it from a shell with: deep-acp -n "explain this project"\n',
    );
  }
  const { config } = await services.config();
  const limits = {
    maxMessageBytes: cli.maxMessageBytes ?? config.acp.max_message_bytes,
    maxDepth: cli.maxJsonDepth ?? config.acp.max_json_depth,
    maxValues: config.acp.max_json_values,
  };
  const preface = early?.handover();
  const server = createAcpServer({
    services,
    version,
    logger,
    maxLoadedSessions: config.acp.max_loaded_sessions,
    earlySessionIds: (preface?.answered ?? []).flatMap((answer) => (answer.sessionId ? [answer.sessionId] : [])),
  });

  let exitCode = 0;
  let stopping: Promise<void> | undefined;
  let finished!: () => void;
  const done = new Promise<void>((resolve) => (finished = resolve));
  const transport = createStdioTransport({
    input: process.stdin,
    output: process.stdout,
    logger,
    limits,
    preface,
    onInputEnd: () => stop(0, "stdin closed"),
  });

  function stop(code: number, why: string): void {
    if (stopping) return;
    exitCode = code;
    logger.debug(`shutting down: ${why}`);
    setTimeout(() => {
      logger.warn(`shutdown took too long (${why}); exiting`);
      transport.flush();
      process.exit(exitCode);
    }, EXIT_DEADLINE_MS).unref();
    stopping = (async () => {
      transport.stopReading();
      server.cancelTurns();
      if (!(await transport.settled(TERM_GRACE_MS))) {
        killTrackedGroups();
        await transport.settled(ANSWER_GRACE_MS);
      }
      transport.close("the agent is shutting down");
      await Promise.race([
        server.shutdown().catch((error) => logger.error("shutdown failed", error)),
        sleep(CLOSE_GRACE_MS),
      ]);
      // Whatever ignored SIGTERM during the sessions' close (or was never asked) goes now.
      const killed = killTrackedGroups();
      if (killed > 0) logger.debug(`killed ${killed} remaining process group(s)`);
      transport.flush();
    })().finally(finished);
  }

  const handlers = Object.entries(SIGNALS).map(([signal, n]) => {
    const handler = () => {
      if (stopping) {
        transport.flush();
        process.exit(128 + n);
      }
      stop(128 + n, signal);
    };
    process.on(signal, handler);
    return () => process.off(signal, handler);
  });
  process.stdout.on("error", () => stop(0, "stdout closed"));

  // ACP v1 as always; a client asking for v2 reaches the v2 agent through the SDK's protocol router.
  const connection = connectVersioned(transport.stream, {
    v1App: server.app,
    loadV2: async () =>
      (await import("../acp/v2/v2-agent.js")).createV2Agent({ v1App: server.app, ...server.v2Hooks, logger }),
    logger,
  });
  void connection.closed.then(() => stop(exitCode, "connection closed"));
  await done;
  for (const off of handlers) off();
  // Whatever still holds the event loop (a watcher, a stuck socket) must not keep a finished agent alive.
  setTimeout(() => process.exit(exitCode), 100).unref();
  return exitCode;
}
