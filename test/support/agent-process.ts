// Spawns the built binary (dist/deep-acp.js) and talks raw newline-delimited JSON-RPC to it, so
// end-to-end tests see exactly the bytes an editor sees.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createWaiters } from "./waiters.js";

export const BINARY = resolve(import.meta.dirname, "../../dist/deep-acp.js");

export type JsonRpcMessage = {
  jsonrpc: "2.0";
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
};

export type AgentProcessOptions = {
  env?: Record<string, string | undefined>;
  args?: string[];
  /** Node options before the script (e.g. --expose-gc, --import a probe). */
  nodeArgs?: string[];
  cwd?: string;
  /** Starts the agent through another program (e.g. npm exec): given node's argv, returns the command to spawn. */
  launcher?: (argv: string[]) => [command: string, args: string[]];
  /** Run this program (an installed bin, a standalone binary) instead of `node dist/deep-acp.js`. */
  executable?: string;
  /** Answers agent->client requests (permission, fs, terminal). Default: permission allow_once. */
  onRequest?: (message: JsonRpcMessage) => unknown | Promise<unknown>;
};

export type AgentProcess = Awaited<ReturnType<typeof startAgentProcess>>;

export async function startAgentProcess(options: AgentProcessOptions = {}) {
  const program = options.executable ?? BINARY;
  if (!existsSync(program)) throw new Error(`${program} is missing: run npm run build first`);
  const argv = options.executable
    ? [options.executable, ...(options.args ?? [])]
    : [process.execPath, ...(options.nodeArgs ?? []), BINARY, ...(options.args ?? [])];
  const [command, args] = options.launcher ? options.launcher(argv) : [argv[0]!, argv.slice(1)];
  const child: ChildProcessWithoutNullStreams = spawn(command, args, {
    cwd: options.cwd,
    env: { PATH: process.env.PATH, ...options.env } as NodeJS.ProcessEnv,
    stdio: ["pipe", "pipe", "pipe"],
  });
  /** Every line the agent wrote to stdout, in order, raw. */
  const lines: string[] = [];
  const messages: JsonRpcMessage[] = [];
  /** Every message written to the agent, in order (what its responses answer). */
  const sent: unknown[] = [];
  let stderr = "";
  const waiters = createWaiters(() => `timed out; stderr:\n${stderr}`);
  let buffer = "";
  let nextId = 1;
  const pending = new Map<number | string, (message: JsonRpcMessage) => void>();

  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      lines.push(line);
      let message: JsonRpcMessage;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      messages.push(message);
      if (message.method && message.id !== undefined && message.id !== null) void answer(message);
      else if (message.id !== undefined && message.id !== null && !message.method) pending.get(message.id)?.(message);
      waiters.notify();
    }
  });
  // "close", not "exit": by then stdout and stderr are read to the end, so a test that awaits the exit
  // sees every message and line the agent wrote. Once stdout is closed nothing more can arrive: a wait
  // for a message still missing fails now, with the agent's stderr, rather than at its time-out.
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolveExit) =>
    child.on("close", (code, signal) => {
      waiters.end(() => `the agent exited (${code ?? signal}) before that happened; stderr:\n${stderr}`);
      resolveExit({ code, signal });
    }),
  );

  async function answer(message: JsonRpcMessage) {
    try {
      const handler = options.onRequest ?? defaultRequestHandler;
      const result = await handler(message);
      write({ jsonrpc: "2.0", id: message.id, result });
    } catch (error) {
      write({ jsonrpc: "2.0", id: message.id, error: { code: -32603, message: (error as Error).message } });
    }
  }

  function write(message: unknown) {
    sent.push(message);
    child.stdin.write(JSON.stringify(message) + "\n");
  }

  function request(method: string, params?: unknown, id: number | string = nextId++): Promise<JsonRpcMessage> {
    return new Promise((resolveResponse) => {
      pending.set(id, resolveResponse);
      write({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  return {
    child,
    lines,
    messages,
    sent,
    get stderr() {
      return stderr;
    },
    exited,
    request,
    notify: (method: string, params?: unknown) =>
      write({ jsonrpc: "2.0", method, ...(params === undefined ? {} : { params }) }),
    writeRaw: (text: string) => child.stdin.write(text),
    waitFor: waiters.waitFor,
    /** session/update notifications for a session, in arrival order. */
    updates: (sessionId?: string) =>
      messages
        .filter((m) => m.method === "session/update" && (sessionId === undefined || m.params?.sessionId === sessionId))
        .map((m) => m.params.update),
    async initialize(clientCapabilities: unknown = {}) {
      return request("initialize", {
        protocolVersion: 1,
        clientCapabilities,
        clientInfo: { name: "e2e", version: "1" },
      });
    },
    async stop() {
      child.stdin.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

function defaultRequestHandler(message: JsonRpcMessage): unknown {
  if (message.method === "session/request_permission") {
    const option = message.params.options.find((o: { kind: string }) => o.kind === "allow_once");
    return { outcome: { outcome: "selected", optionId: option.optionId } };
  }
  throw new Error(`unexpected client request ${message.method}`);
}
