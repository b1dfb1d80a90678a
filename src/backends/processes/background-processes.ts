import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { trackProcessGroup } from "../../util/process-groups.js";
import { isGroupAlive, killProcessGroup } from "./process-group.js";
import type { BackgroundSpawnSpec } from "../protocol.js";

// Long-running commands (dev servers, watchers, long test runs) started with `execute {background:
// true}`. They belong to the session, not the turn: a turn ends while they run, the model reads their
// new output or stops them by id, and closing the session kills them. Each runs as the leader of its
// own process group, recorded in util/process-groups, so shutdown kills it and a reaper kills it if the
// agent itself is SIGKILLed. Output is kept in a bounded window; reads return what is new.

export type BackgroundExit = { exitCode: number | null; signal: string | null; stopped: boolean };

export type BackgroundProcessInfo = {
  id: string;
  command: string;
  cwd: string;
  pid: number | undefined;
  startedAt: Date;
  exit?: BackgroundExit;
  /** Characters printed so far. */
  outputChars: number;
};

export type BackgroundListener = {
  onOutput?(data: string): void;
  onExit?(exit: BackgroundExit): void;
};

export type BackgroundRead = {
  info: BackgroundProcessInfo;
  /** Output since the previous read (the newest `maxChars` of it). */
  output: string;
  /** Characters of new output that were dropped (older than the window or over `maxChars`). */
  skipped: number;
};

export type BackgroundProcessesOptions = {
  /** Processes running at once. */
  maxProcesses: number;
  /** Characters of output kept per process; older output is dropped. */
  keepChars: number;
  /** Time between SIGTERM and SIGKILL when stopping. */
  killGraceMs?: number;
  spawn?: (file: string, args: string[], options: SpawnOptions) => ChildProcess;
  now?: () => Date;
};

export class BackgroundLimitError extends Error {}

type Entry = {
  info: BackgroundProcessInfo;
  /** Output window: text and the absolute offset of its first character. */
  window: string;
  windowStart: number;
  readOffset: number;
  listeners: Set<BackgroundListener>;
  exited: Promise<BackgroundExit>;
  stop(): Promise<BackgroundExit>;
};

export function createBackgroundProcesses(options: BackgroundProcessesOptions) {
  const entries = new Map<string, Entry>();
  const spawn = options.spawn ?? nodeSpawn;
  const now = options.now ?? (() => new Date());
  const grace = options.killGraceMs ?? 2000;
  let next = 1;

  const running = () => [...entries.values()].filter((e) => !e.info.exit).length;

  return {
    /** Throws BackgroundLimitError when `maxProcesses` are running. */
    start(command: string, spec: BackgroundSpawnSpec, listener?: BackgroundListener): BackgroundProcessInfo {
      if (running() >= options.maxProcesses) {
        throw new BackgroundLimitError(
          `${options.maxProcesses} background processes are already running; stop one first (process_stop)`,
        );
      }
      const id = `p${next++}`;
      const child = spawn(spec.file, spec.args, {
        cwd: spec.cwd,
        env: spec.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      const pid = child.pid;
      const untrack = pid !== undefined ? trackProcessGroup(pid) : () => undefined;
      const info: BackgroundProcessInfo = { id, command, cwd: spec.cwd, pid, startedAt: now(), outputChars: 0 };
      let stopping = false;
      let resolveExit!: (exit: BackgroundExit) => void;
      const entry: Entry = {
        info,
        window: "",
        windowStart: 0,
        readOffset: 0,
        listeners: new Set(listener ? [listener] : []),
        exited: new Promise((resolve) => (resolveExit = resolve)),
        async stop() {
          if (!info.exit && pid !== undefined) {
            stopping = true;
            await killProcessGroup(pid, grace);
          }
          return entry.exited;
        },
      };
      const append = (data: string) => {
        info.outputChars += data.length;
        entry.window += data;
        if (entry.window.length > options.keepChars * 2) {
          const drop = entry.window.length - options.keepChars;
          entry.window = entry.window.slice(drop);
          entry.windowStart += drop;
        }
        for (const l of entry.listeners) l.onOutput?.(data);
      };
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.setEncoding("utf8");
        stream.on("data", append);
      }
      let finished = false;
      const finish = (exitCode: number | null, signal: string | null) => {
        if (finished) return;
        finished = true;
        // Children it left in its group die with it, as with a foreground command.
        const cleanup = pid !== undefined && isGroupAlive(pid) ? killProcessGroup(pid, grace) : Promise.resolve();
        void cleanup.then(() => {
          untrack();
          child.stdout?.destroy();
          child.stderr?.destroy();
          info.exit = { exitCode, signal, stopped: stopping };
          for (const l of entry.listeners) l.onExit?.(info.exit);
          resolveExit(info.exit);
        });
      };
      child.on("error", (error) => {
        append(`Failed to start command: ${error.message}\n`);
        finish(null, null);
      });
      // "close" waits for the pipes, so the last output is in before the exit is reported.
      child.on("close", (code, signal) => finish(code, signal));
      entries.set(id, entry);
      return info;
    },

    get(id: string): BackgroundProcessInfo | undefined {
      return entries.get(id)?.info;
    },

    list(): BackgroundProcessInfo[] {
      return [...entries.values()].map((e) => e.info);
    },

    listen(id: string, listener: BackgroundListener): () => void {
      const entry = entries.get(id);
      entry?.listeners.add(listener);
      return () => entry?.listeners.delete(listener);
    },

    /** New output since the last read, newest `maxChars` of it. */
    read(id: string, maxChars: number): BackgroundRead | undefined {
      const entry = entries.get(id);
      if (!entry) return undefined;
      const end = entry.windowStart + entry.window.length;
      const from = Math.max(entry.readOffset, entry.windowStart, end - maxChars);
      const skipped = from - entry.readOffset;
      entry.readOffset = end;
      return { info: entry.info, output: entry.window.slice(from - entry.windowStart), skipped };
    },

    /** Kills the process group (SIGTERM, then SIGKILL) and resolves with its exit. */
    async stop(id: string): Promise<BackgroundExit | undefined> {
      const entry = entries.get(id);
      return entry ? entry.stop() : undefined;
    },

    /** Session close: stops every process and waits for them. */
    async closeAll(): Promise<void> {
      await Promise.all([...entries.values()].map((e) => e.stop()));
    },
  };
}

/** "[exited with code 1]", "[stopped]", "[killed by SIGKILL]". */
export function describeExit(exit: BackgroundExit): string {
  if (exit.stopped) return "[stopped]";
  if (exit.exitCode !== null)
    return exit.exitCode === 0 ? "[exited with code 0]" : `[exited with code ${exit.exitCode}]`;
  return `[killed by ${exit.signal ?? "a signal"}]`;
}
