import { existsSync } from "node:fs";
import { buildShellEnv } from "../backends/processes/shell-env.js";
import type { PeerAgentConfig } from "../config/config-file.js";
import { peerProgram } from "../gate/seams/peer-program.js";
import { connectPeer, type PeerConnection } from "./peer-connection.js";

// The parent session's child agents: one process per configured agent, started when a task first
// needs it, reused by the session's later tasks (each in a session of its own), started again after
// it died, and stopped with the session.

export type PeerState =
  | { state: "not started" }
  | { state: "starting" }
  | { state: "running"; pid: number | undefined; agent: string }
  | { state: "failed"; reason: string };

export type PeerPool = {
  /** The running child for `name`, started (and initialized) if it is not. */
  connection(name: string, config: PeerAgentConfig): Promise<PeerConnection>;
  state(name: string): PeerState;
  close(): Promise<void>;
};

export type PeerPoolOptions = {
  /** deep-acp's environment; an agent's `env` is laid over it. */
  env: NodeJS.ProcessEnv;
  /** Where the processes start: the session's directory on this machine (its tools see the workspace's). */
  cwd: string;
  /** How long initialize may take at most. */
  startTimeoutMs?: number;
  /** The session's editor opens URL elicitations (then the children are told they may send them). */
  urls?: boolean;
};

export function createPeerPool(options: PeerPoolOptions): PeerPool {
  const started = new Map<string, Promise<PeerConnection>>();
  const failures = new Map<string, string>();
  const running = new Map<string, PeerConnection>();
  let closed = false;

  return {
    connection(name, config) {
      if (closed) return Promise.reject(new Error("the session is closed"));
      const current = running.get(name);
      if (current && !current.gone) return Promise.resolve(current);
      let pending = started.get(name);
      if (!pending) {
        const env = childEnv(options.env, config);
        // Never a program of the project's own (gate/seams/peer-program.ts).
        const command = peerProgram(config.command, env.PATH, options.cwd);
        if (!command)
          return Promise.reject(
            new Error(`${config.command} is not on PATH outside this project (a program of the project's is not run)`),
          );
        pending = connectPeer({
          name,
          launch: {
            command,
            args: config.args,
            // Our environment without what looks like a secret (our model keys, cloud credentials), as for
            // a command: Codex and Gemini run shells of their own. The agent's key comes by `env` or `pass_env`.
            env,
            // A container workspace's directory is no directory here; the child then starts in ours.
            cwd: existsSync(options.cwd) ? options.cwd : process.cwd(),
          },
          timeoutMs: Math.min(config.timeout_seconds * 1000, options.startTimeoutMs ?? 60_000),
          ...(config.auth_method ? { authMethod: config.auth_method } : {}),
          ...(options.urls ? { urls: true } : {}),
        }).then(
          (connection) => {
            started.delete(name);
            failures.delete(name);
            if (closed) {
              void connection.close();
              throw new Error("the session is closed");
            }
            running.set(name, connection);
            void connection.exited.then((reason) => failures.set(name, reason));
            return connection;
          },
          (error: unknown) => {
            started.delete(name);
            failures.set(name, (error as Error).message);
            throw error;
          },
        );
        started.set(name, pending);
      }
      return pending;
    },
    state(name) {
      const connection = running.get(name);
      if (connection && !connection.gone)
        return {
          state: "running",
          pid: connection.pid,
          agent: connection.initialize.agentInfo
            ? `${connection.initialize.agentInfo.name} ${connection.initialize.agentInfo.version}`
            : name,
        };
      if (started.has(name)) return { state: "starting" };
      const failure = failures.get(name);
      return failure ? { state: "failed", reason: failure } : { state: "not started" };
    },
    async close() {
      closed = true;
      const all = [...running.values()];
      running.clear();
      await Promise.all(all.map((c) => c.close().catch(() => undefined)));
    },
  };
}

/**
 * The child's environment: ours as a command gets it (no model keys, cloud credentials or DEEP_ACP_*),
 * then the variables `pass_env` names (a child agent may need a model key of its own, which no
 * command ever gets), then the agent's `env`.
 */
function childEnv(ours: NodeJS.ProcessEnv, config: Pick<PeerAgentConfig, "env" | "pass_env">): Record<string, string> {
  const passed = Object.fromEntries(
    config.pass_env.flatMap((name) => (ours[name] === undefined ? [] : [[name, ours[name]!]])),
  );
  return buildShellEnv({ baseEnv: ours, extraEnv: { ...passed, ...config.env } });
}
