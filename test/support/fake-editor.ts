// The client side of ACP as an editor implements it: fs/* over the disk with unsaved buffers
// layered on top, terminal/* running real processes, and scripted permission answers. Used by
// end-to-end tests that advertise editor capabilities (as Zed does).
import { spawn, type ChildProcess } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { JsonRpcMessage } from "./agent-process.js";

export const ZED_CAPABILITIES = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: true,
  auth: { terminal: true },
  elicitation: { form: {}, url: {} },
  _meta: { terminal_output: true, "terminal-auth": true },
};

/** The two clients e2e suites run against: Zed's capabilities, and a client that advertises none. */
export const CLIENTS = [
  ["Zed", ZED_CAPABILITIES],
  ["a client with no capabilities", {}],
] as const;

type Terminal = {
  process: ChildProcess;
  output: string;
  exit?: { exitCode: number | null; signal: string | null };
  exited: Promise<void>;
};

export function createFakeEditor(
  options: { permission?: (m: JsonRpcMessage) => unknown; elicitation?: (m: JsonRpcMessage) => unknown } = {},
) {
  /** Unsaved editor buffers: reads see these instead of the disk. */
  const buffers = new Map<string, string>();
  const writes: Array<{ path: string; content: string }> = [];
  const reads: string[] = [];
  const terminals = new Map<string, Terminal>();
  const released = new Set<string>();
  let nextTerminal = 1;

  async function handle(message: JsonRpcMessage): Promise<unknown> {
    const p = message.params;
    switch (message.method) {
      case "session/request_permission": {
        if (options.permission) return options.permission(message);
        const option = p.options.find((o: { kind: string }) => o.kind === "allow_once");
        return { outcome: { outcome: "selected", optionId: option.optionId } };
      }
      case "fs/read_text_file": {
        reads.push(p.path);
        const text = buffers.get(p.path) ?? (await readFile(p.path, "utf8"));
        if (p.line === undefined && p.limit === undefined) return { content: text };
        const lines = text.split("\n");
        const start = (p.line ?? 1) - 1;
        return { content: lines.slice(start, p.limit === undefined ? undefined : start + p.limit).join("\n") };
      }
      case "fs/write_text_file":
        writes.push({ path: p.path, content: p.content });
        await mkdir(dirname(p.path), { recursive: true });
        await writeFile(p.path, p.content);
        buffers.delete(p.path);
        return null;
      case "terminal/create": {
        const id = `term-${nextTerminal++}`;
        const child = spawn(p.command, p.args ?? [], {
          cwd: p.cwd,
          env: {
            ...process.env,
            ...Object.fromEntries((p.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value])),
          },
          detached: true,
        });
        const terminal: Terminal = {
          process: child,
          output: "",
          exited: new Promise((resolve) =>
            child.on("exit", (code, signal) => ((terminal.exit = { exitCode: code, signal }), resolve())),
          ),
        };
        child.stdout?.on("data", (d) => (terminal.output += d));
        child.stderr?.on("data", (d) => (terminal.output += d));
        terminals.set(id, terminal);
        return { terminalId: id };
      }
      case "terminal/output": {
        const t = terminals.get(p.terminalId)!;
        return { output: t.output, truncated: false, ...(t.exit ? { exitStatus: t.exit } : {}) };
      }
      case "terminal/wait_for_exit": {
        const t = terminals.get(p.terminalId)!;
        await t.exited;
        return t.exit;
      }
      case "terminal/kill": {
        const t = terminals.get(p.terminalId)!;
        if (!t.exit && t.process.pid) process.kill(-t.process.pid, "SIGKILL");
        return {};
      }
      case "terminal/release": {
        const t = terminals.get(p.terminalId);
        if (t && !t.exit && t.process.pid) process.kill(-t.process.pid, "SIGKILL");
        released.add(p.terminalId);
        return {};
      }
      case "elicitation/create":
        // Like Zed when nobody is there to fill the form: the user closes it.
        return options.elicitation ? options.elicitation(message) : { action: "cancel" };
      default:
        throw new Error(`unexpected client request ${message.method}`);
    }
  }

  return { handle, buffers, writes, reads, terminals, released };
}
