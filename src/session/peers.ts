import { createPeerPool, describePeers, type PeerPool } from "../peers/index.js";
import type { TurnPeers } from "../turn/index.js";
import type { SessionOptions } from "./services.js";

// The session's other ACP agents: their processes (one per configured agent, started by the first
// task that needs it) live as long as the session, like its background processes, and its turns
// reach them through TurnPeers. The wire's error for a refused child request and the editor's MCP
// servers come from the session's collaborators.

export type SessionPeers = {
  /** What a turn runs `[agents.NAME]` tasks with. */
  forTurn(): TurnPeers;
  /** The pool, once a task started it (for /agents). */
  readonly pool: PeerPool | undefined;
  /** Markdown for /agents: the configured agents, their health here, and what bypasses the gate. */
  describe(): Promise<string>;
  close(): Promise<void>;
};

export function createSessionPeers(
  options: Pick<SessionOptions, "cwd" | "services" | "peerErrors" | "peerMcpServers">,
): SessionPeers {
  let pool: PeerPool | undefined;
  const errors = options.peerErrors ?? {
    refused: (message: string) => new Error(message),
    notFound: (path: string) => new Error(`Resource not found: ${path}`),
  };
  return {
    forTurn() {
      pool ??= createPeerPool({ env: options.services.env, cwd: options.cwd });
      const servers = options.peerMcpServers;
      return { pool, errors, localCwd: options.cwd, ...(servers ? { mcpServers: () => [...servers] } : {}) };
    },
    get pool() {
      return pool;
    },
    async describe() {
      const { config } = await options.services.config();
      return describePeers(config.agents, pool, options.services.env);
    },
    close: async () => pool?.close(),
  };
}
