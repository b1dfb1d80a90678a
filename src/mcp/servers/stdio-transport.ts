// MCP stdio transport that owns its child's whole process group. The SDK's transport signals only
// the direct child, so `npx some-server` (npx -> node) or a server that forks helpers would leave
// orphans behind. Here the server starts in its own process group; shutdown closes stdin, waits,
// sends SIGTERM to the group, waits, then SIGKILLs the group, and finally sweeps group members the
// leader left behind.

import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { existsSync } from "node:fs";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { isGroupAlive, signalGroup } from "../../backends/processes/process-group.js";
import { trackProcessGroup } from "../../util/process-groups.js";

export type SpawnFunction = (command: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export type StdioTransportOptions = {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  /** Parses one stdout line into a JSON-RPC message; throws on anything else (logged, skipped). */
  deserialize: (line: string) => JSONRPCMessage;
  /** Default: child_process.spawn. */
  spawn?: SpawnFunction;
  /** Time the server gets to exit after stdin closes. Default: 2000 ms. */
  stdinGraceMs?: number;
  /** Time between SIGTERM and SIGKILL. Default: 2000 ms. */
  termGraceMs?: number;
  /** Every chunk of the server's stderr. */
  onStderr?: (text: string) => void;
  /** A stdout line that is not JSON-RPC (servers that log to stdout). */
  onInvalidLine?: (line: string, error: unknown) => void;
  /** Default: process.platform. Process groups are used everywhere except win32. */
  platform?: NodeJS.Platform;
};

export type ExitInfo = { code: number | null; signal: NodeJS.Signals | null };

export interface StdioTransport extends Transport {
  readonly pid: number | null;
  /** Set once the server process has exited. */
  readonly exit: ExitInfo | null;
  /** The last few kilobytes of stderr, for error reports. */
  stderrTail(): string;
}

const STDERR_TAIL_CHARS = 4000;
const MAX_LINE_BYTES = 16 * 1024 * 1024;

export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  const spawn = options.spawn ?? (nodeSpawn as SpawnFunction);
  const groups = (options.platform ?? process.platform) !== "win32";
  const stdinGraceMs = options.stdinGraceMs ?? 2000;
  const termGraceMs = options.termGraceMs ?? 2000;
  let child: ChildProcess | undefined;
  let exit: ExitInfo | null = null;
  let exited: Promise<void> = Promise.resolve();
  let stderr = "";
  let pending: Buffer = Buffer.alloc(0);
  let closed = false;
  let closing: Promise<void> | undefined;
  let untrack = () => {};

  const transport: StdioTransport = {
    get pid() {
      return child?.pid ?? null;
    },
    get exit() {
      return exit;
    },
    stderrTail: () => stderr.trim(),
    start,
    send,
    close,
  };

  function start(): Promise<void> {
    if (child) throw new Error("stdio transport already started");
    return new Promise((resolve, reject) => {
      let spawned = false;
      const proc = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: groups,
        windowsHide: true,
        shell: false,
      });
      child = proc;
      exited = new Promise((done) => proc.once("close", () => done()));
      proc.once("spawn", () => {
        spawned = true;
        // The one registry of process groups kills it if the agent exits without closing us.
        if (groups && proc.pid) untrack = trackProcessGroup(proc.pid);
        resolve();
      });
      proc.on("error", (error: NodeJS.ErrnoException) => {
        // spawn reports a missing cwd as ENOENT too; name the right culprit.
        const friendly =
          error.code === "ENOENT"
            ? new Error(
                existsSync(options.cwd)
                  ? `command not found: ${options.command}`
                  : `working directory not found: ${options.cwd}`,
              )
            : error;
        if (!spawned) reject(friendly);
        else transport.onerror?.(friendly);
      });
      proc.once("close", (code, signal) => {
        exit = { code, signal };
        finish();
      });
      proc.stdin?.on("error", (error) => transport.onerror?.(error));
      proc.stdout?.on("data", (chunk: Buffer) => readStdout(chunk));
      proc.stderr?.setEncoding("utf8");
      proc.stderr?.on("data", (text: string) => {
        stderr = (stderr + text).slice(-STDERR_TAIL_CHARS);
        options.onStderr?.(text);
      });
    });
  }

  function readStdout(chunk: Buffer): void {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    for (;;) {
      const newline = pending.indexOf(0x0a);
      if (newline === -1) break;
      const line = pending.toString("utf8", 0, newline).replace(/\r$/, "");
      pending = pending.subarray(newline + 1);
      if (line.trim() === "") continue;
      let message: JSONRPCMessage;
      try {
        message = options.deserialize(line);
      } catch (error) {
        options.onInvalidLine?.(line, error);
        continue;
      }
      transport.onmessage?.(message);
    }
    if (pending.length > MAX_LINE_BYTES) {
      pending = Buffer.alloc(0);
      transport.onerror?.(new Error(`server wrote a line longer than ${MAX_LINE_BYTES} bytes`));
    }
  }

  function send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = child?.stdin;
      if (!stdin || closed || exit || !stdin.writable) {
        reject(new Error("MCP server is not running"));
        return;
      }
      if (stdin.write(`${JSON.stringify(message)}\n`)) resolve();
      else stdin.once("drain", () => resolve());
    });
  }

  function finish(): void {
    if (closed) return;
    closed = true;
    transport.onclose?.();
  }

  function close(): Promise<void> {
    closing ??= shutdown();
    return closing;
  }

  async function shutdown(): Promise<void> {
    const proc = child;
    if (!proc || !proc.pid) {
      finish();
      return;
    }
    const pid = proc.pid;
    if (!exit) {
      proc.stdin?.end();
      await settle(exited, stdinGraceMs);
    }
    if (!exit) {
      signal(proc, "SIGTERM");
      await settle(exited, termGraceMs);
    }
    if (!exit) {
      signal(proc, "SIGKILL");
      await settle(exited, termGraceMs);
    }
    // The leader is gone; helpers it started may still hold the group.
    if (groups && isGroupAlive(pid)) {
      signalGroup(pid, "SIGTERM");
      await until(() => !isGroupAlive(pid), termGraceMs);
      if (isGroupAlive(pid)) signalGroup(pid, "SIGKILL");
      await until(() => !isGroupAlive(pid), termGraceMs);
    }
    untrack();
    finish();
  }

  function signal(proc: ChildProcess, name: NodeJS.Signals): void {
    if (groups && proc.pid) signalGroup(proc.pid, name);
    else proc.kill(name);
  }

  return transport;
}

function settle(promise: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

async function until(done: () => boolean, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
}
