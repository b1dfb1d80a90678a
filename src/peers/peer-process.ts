import { spawn, type ChildProcess } from "node:child_process";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { trackProcessGroup } from "../util/process-groups.js";

// The child agent as a process and a stream of JSON-RPC messages. We frame the lines ourselves
// rather than with the SDK's ndJsonStream: a line that is not JSON must end the child with a clear
// reason (the task then fails with it), where a lenient reader would skip it and leave the task
// waiting for an answer that never comes.

export type PeerLaunch = {
  command: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** Where the process starts (the parent session's directory on this machine). */
  cwd: string;
};

/** Why the child is gone: it exited, could not start, or broke the protocol. */
export type PeerExit = { reason: string };

export type PeerProcess = {
  stream: acp.Stream;
  /** Resolves once when the child is gone for any reason (never rejects). */
  exited: Promise<PeerExit>;
  pid: number | undefined;
  /** The end of what the child wrote to stderr, for error messages. */
  stderrTail(): string;
  /** Stops the child (SIGTERM, then SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
};

const STDERR_TAIL_CHARS = 2000;
/** A line longer than this is not a message we can take (the child's own limits are similar). */
const MAX_LINE_CHARS = 64 * 1024 * 1024;

export function spawnPeer(launch: PeerLaunch): PeerProcess {
  const child: ChildProcess = spawn(launch.command, [...launch.args], {
    cwd: launch.cwd,
    env: launch.env,
    stdio: ["pipe", "pipe", "pipe"],
    // Its own process group, killed as one: an npm bin is often a node wrapper around the real agent
    // (codex-acp's native binary), which a signal to the wrapper alone would leave running.
    detached: true,
  });
  const untrack = child.pid ? trackProcessGroup(child.pid) : () => undefined;
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  let stderr = "";
  child.stderr?.setEncoding("utf8");
  child.stderr?.on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-STDERR_TAIL_CHARS)));

  let settle!: (exit: PeerExit) => void;
  const exited = new Promise<PeerExit>((resolve) => (settle = resolve));
  let gone: PeerExit | undefined;
  const end = (reason: string) => {
    if (gone) return;
    gone = { reason };
    buffer = "";
    settle(gone);
    // Whatever is still waiting on the stream learns it is over.
    try {
      controller?.error(new Error(reason));
    } catch {
      // already closed
    }
    // What the leader started goes with it (the group outlives a leader that exits on its own).
    killGroup("SIGKILL");
    untrack();
  };
  child.on("error", (error) => end(`could not start ${launch.command}: ${error.message}`));
  child.on("exit", (code, signal) =>
    end(signal ? `exited on signal ${signal}` : `exited with code ${code ?? "unknown"}`),
  );
  child.stdin?.on("error", () => undefined);

  let controller: ReadableStreamDefaultController<acp.AnyMessage> | undefined;
  let buffer = "";
  const readable = new ReadableStream<acp.AnyMessage>({
    start(c) {
      controller = c;
      child.stdout?.setEncoding("utf8");
      child.stdout?.on("data", (chunk: string) => {
        // After the end (bad output, an exit) the stream is errored: what is still in the pipe is dropped,
        // not enqueued (enqueueing on an errored stream throws, and here nothing would catch it).
        if (gone) return;
        buffer += chunk;
        if (buffer.length > MAX_LINE_CHARS) return end("sent a line longer than 64 MiB");
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (!line) continue;
          let message: unknown;
          try {
            message = JSON.parse(line);
          } catch {
            return end(`spoke something that is not JSON-RPC on stdout: ${JSON.stringify(line.slice(0, 120))}`);
          }
          if (typeof message !== "object" || message === null || Array.isArray(message))
            return end(`sent a JSON value that is not a JSON-RPC message: ${line.slice(0, 120)}`);
          c.enqueue(message as acp.AnyMessage);
        }
      });
      child.stdout?.on("end", () => {
        try {
          c.close();
        } catch {
          // errored already
        }
      });
    },
  });
  const writable = new WritableStream<acp.AnyMessage>({
    write(message) {
      if (gone || !child.stdin?.writable) return;
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
  });

  return {
    stream: { readable, writable },
    exited,
    pid: child.pid,
    stderrTail: () => stderr.trim(),
    async stop(graceMs = 2000) {
      if (gone) return;
      child.stdin?.end();
      killGroup("SIGTERM");
      const timer = setTimeout(() => killGroup("SIGKILL"), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
