import type { PeerAgentConfig } from "../config/config-file.js";
import type { McpServerDefinition } from "../mcp/index.js";
import { acpMcpServers } from "./pass-mcp.js";
import { describePeers } from "./describe.js";
import type { PeerWireErrors } from "./peer-editor.js";
import { createPeerPool, type PeerPool } from "./peer-pool.js";

// A session's other ACP agents: their processes (one per configured agent, started by the first
// task that needs it) live as long as the session, like its background processes
// (session/background.ts owns this), and its turns reach them through PeerTurnParts. The wire's
// errors for a refused child request come from the session's collaborators, the MCP servers to
// pass on from the turn's (pass-mcp.ts).

/** What a turn runs `[agents.NAME]` tasks with. */
export type PeerTurnParts = {
  pool: PeerPool;
  /** What a child's refused or impossible fs/terminal request answers with (built by acp/, injected). */
  errors: PeerWireErrors;
  /** The session's directory on this machine: where the child works (the workspace may be elsewhere). */
  localCwd: string;
  /** The session's MCP servers as ACP passes them (for agents with `pass_mcp_servers`). */
  mcpServers?: () => unknown[];
};

export type SessionPeersOptions = {
  /** The session's directory on this machine. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  errors?: PeerWireErrors;
  mcpServers?: readonly unknown[];
  /** The user's `[agents.NAME]`, as config.toml says now (for /agents). */
  agents(): Promise<Readonly<Record<string, PeerAgentConfig>>>;
};

export type SessionPeers = {
  /**
   * `mcp`: the turn's MCP servers (what `pass_mcp_servers` hands on; else the editor's list);
   * `urls`: the editor opens URL elicitations (fixed for the session: its children start knowing it).
   */
  forTurn(turn?: { mcp?: { runnable(): McpServerDefinition[] }; urls?: boolean }): PeerTurnParts;
  /** The pool, once a task started it (for /agents). */
  readonly pool: PeerPool | undefined;
  /** Markdown for /agents: the configured agents, their health here, and what bypasses the gate. */
  describe(): Promise<string>;
  close(): Promise<void>;
};

export function createSessionPeers(options: SessionPeersOptions): SessionPeers {
  let pool: PeerPool | undefined;
  const errors = options.errors ?? {
    refused: (message: string) => new Error(message),
    notFound: (path: string) => new Error(`Resource not found: ${path}`),
  };
  return {
    forTurn(turn = {}) {
      const { mcp } = turn;
      pool ??= createPeerPool({ env: options.env, cwd: options.cwd, ...(turn.urls ? { urls: true } : {}) });
      const servers = options.mcpServers;
      const mcpServers = mcp ? () => acpMcpServers(mcp.runnable()) : servers ? () => [...servers] : undefined;
      return { pool, errors, localCwd: options.cwd, ...(mcpServers ? { mcpServers } : {}) };
    },
    get pool() {
      return pool;
    },
    async describe() {
      return describePeers(await options.agents(), pool, options.env);
    },
    close: async () => pool?.close(),
  };
}
