import { readFile, writeFile } from "node:fs/promises";
import type {
  EditorBridge,
  EditorTerminal,
  EditorTerminalExit,
  EditorTerminalRequest,
} from "../../../src/backends/editor/editor-bridge.js";

// An editor stand-in: files come from unsaved buffers first, then disk; writes "save" to disk.
// Terminals are scripted: each createTerminal takes the next script (exit after a delay, or hang
// until killed). Every call is recorded so tests can assert what went through the editor.

export type TerminalScript = {
  output: string;
  truncated?: boolean;
  /** Exit after this many ms; undefined = run until killed. */
  exitAfterMs?: number;
  exitCode?: number;
};

export type FakeTerminalRecord = { id: string; request: EditorTerminalRequest; killed: boolean; released: number };

export function createFakeEditorBridge(
  options: { canReadFiles?: boolean; canWriteFiles?: boolean; canRunTerminals?: boolean } = {},
) {
  const buffers = new Map<string, string>();
  const calls: Array<{ method: string; path?: string }> = [];
  const terminals: FakeTerminalRecord[] = [];
  const scripts: TerminalScript[] = [];
  const refusedWrites = new Set<string>();

  const bridge: EditorBridge & {
    buffers: Map<string, string>;
    calls: typeof calls;
    terminals: typeof terminals;
    scripts: typeof scripts;
    refusedWrites: Set<string>;
  } = {
    canReadFiles: options.canReadFiles ?? true,
    canWriteFiles: options.canWriteFiles ?? true,
    canRunTerminals: options.canRunTerminals ?? false,
    buffers,
    calls,
    terminals,
    scripts,
    refusedWrites,
    async readTextFile(path) {
      calls.push({ method: "readTextFile", path });
      const buffered = buffers.get(path);
      if (buffered !== undefined) return buffered;
      return readFile(path, "utf8");
    },
    async writeTextFile(path, content) {
      calls.push({ method: "writeTextFile", path });
      if (refusedWrites.has(path)) throw new Error("user rejected the change");
      buffers.delete(path);
      await writeFile(path, content);
    },
    async createTerminal(request) {
      calls.push({ method: "createTerminal" });
      const script = scripts.shift() ?? { output: "", exitAfterMs: 0, exitCode: 0 };
      const record: FakeTerminalRecord = { id: `term-${terminals.length + 1}`, request, killed: false, released: 0 };
      terminals.push(record);
      let exitStatus: EditorTerminalExit | null = null;
      let settle!: (exit: EditorTerminalExit) => void;
      const exited = new Promise<EditorTerminalExit>((r) => (settle = r));
      const finish = (exit: EditorTerminalExit) => {
        if (exitStatus) return;
        exitStatus = exit;
        settle(exit);
      };
      let timer: NodeJS.Timeout | undefined;
      if (script.exitAfterMs !== undefined)
        timer = setTimeout(() => finish({ exitCode: script.exitCode ?? 0, signal: null }), script.exitAfterMs);
      const terminal: EditorTerminal = {
        id: record.id,
        waitForExit: () => exited,
        async currentOutput() {
          return { output: script.output, truncated: script.truncated ?? false, exitStatus };
        },
        async kill() {
          record.killed = true;
          if (timer) clearTimeout(timer);
          finish({ exitCode: null, signal: "SIGKILL" });
        },
        async release() {
          record.released++;
          if (timer) clearTimeout(timer);
        },
      };
      return terminal;
    },
  };
  return bridge;
}
