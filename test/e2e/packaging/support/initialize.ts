import { spawn } from "node:child_process";

export type InitializeProbe = {
  /** The JSON-RPC response to `initialize` (id 1). */
  response: { jsonrpc: string; id: number; result?: any; error?: unknown };
  /** Every stdout line, to prove nothing but JSON-RPC was written. */
  lines: string[];
  stderr: string;
  /** Exit code after stdin was closed. */
  code: number | null;
};

export type ProbeOptions = { cwd: string; env: NodeJS.ProcessEnv; clientName?: string };

/**
 * Starts `command args` the way an editor does, sends `initialize`, waits for its answer, closes
 * stdin and waits for the exit. The process is killed if the test ends first.
 */
export function probeInitialize(
  command: string,
  args: readonly string[],
  options: ProbeOptions,
): Promise<InitializeProbe> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ["pipe", "pipe", "pipe"] });
    const lines: string[] = [];
    let stderr = "";
    let buffer = "";
    let response: InitializeProbe["response"] | undefined;
    const guard = setTimeout(() => child.kill("SIGKILL"), 25_000);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        lines.push(line);
        try {
          const message = JSON.parse(line);
          if (message.id === 1 && response === undefined) {
            response = message;
            child.stdin.end();
          }
        } catch {
          // kept in `lines`; the caller asserts every line is JSON
        }
      }
    });
    child.on("error", (error) => {
      clearTimeout(guard);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(guard);
      if (buffer !== "") lines.push(buffer);
      if (!response)
        return reject(
          new Error(`${command} ${args.join(" ")} exited (${code}) without answering initialize; stderr:\n${stderr}`),
        );
      resolve({ response, lines, stderr, code });
    });
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: {
        protocolVersion: 1,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
        clientInfo: { name: options.clientName ?? "packaging-test", version: "1" },
      },
    };
    child.stdin.write(`${JSON.stringify(initialize)}\n`);
  });
}
