import { spawn as nodeSpawn, type ChildProcess, type SpawnOptions } from "node:child_process";
import { createOutputBuffer } from "./output-buffer.js";
import { trackProcessGroup } from "../../util/process-groups.js";
import { isGroupAlive, killProcessGroup } from "./process-group.js";
import type { ExecuteResponse } from "../protocol.js";

// Runs one command as the leader of a new process group (detached => setsid) with stdin closed,
// streams stdout and stderr as they arrive, and on timeout or abort kills the whole group. Shared by
// the local shell and the bubblewrap sandbox.

export type SpawnProcessFn = (file: string, args: string[], options: SpawnOptions) => ChildProcess;

export type RunCommandOptions = {
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  maxOutputChars: number;
  /** Time between SIGTERM and SIGKILL. */
  killGraceMs: number;
  /** Kill processes the command left running in the background when it exits. */
  killBackgroundOnExit: boolean;
  signal?: AbortSignal;
  onOutput?: (chunk: string) => void;
  spawn?: SpawnProcessFn;
  /** Called with the leader's pid once it started (tests use it to inspect the group). */
  onSpawn?: (pid: number) => void;
};

/** How long to wait for output pipes held open by a process that escaped the group (setsid). */
const DRAIN_MS = 250;

export function runCommand(options: RunCommandOptions): Promise<ExecuteResponse> {
  const empty = { output: "", exitCode: null, signal: null, truncated: false, timedOut: false };
  if (options.signal?.aborted) return Promise.resolve({ ...empty, aborted: true });
  const spawn = options.spawn ?? nodeSpawn;

  return new Promise((resolvePromise) => {
    const buffer = createOutputBuffer(options.maxOutputChars);
    let child: ChildProcess;
    try {
      child = spawn(options.file, options.args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
    } catch (error) {
      resolvePromise({ ...empty, output: `Failed to start command: ${(error as Error).message}` });
      return;
    }
    let timedOut = false;
    let aborted = false;
    let killing: Promise<void> | undefined;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    let settled = false;
    let streamsOpen = 2;
    let drainTimer: NodeJS.Timeout | undefined;

    const pid = child.pid;
    // Until the group is known to be gone, shutdown (and a reaper, if we are SIGKILLed) can kill it.
    const untrack = pid !== undefined ? trackProcessGroup(pid) : () => undefined;
    if (pid !== undefined) options.onSpawn?.(pid);
    const terminate = () => {
      if (pid === undefined) return Promise.resolve();
      killing ??= killProcessGroup(pid, options.killGraceMs);
      return killing;
    };
    const onAbort = () => {
      aborted = true;
      void terminate();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      void terminate();
    }, options.timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });

    const onData = (chunk: string) => {
      buffer.push(chunk);
      try {
        options.onOutput?.(chunk);
      } catch {
        // a failing listener must not lose the output
      }
    };
    for (const stream of [child.stdout!, child.stderr!]) {
      stream.setEncoding("utf8");
      stream.on("data", onData);
      stream.on("close", () => {
        streamsOpen--;
        maybeFinish();
      });
    }

    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (killing) await killing;
      // Background processes a command was allowed to leave stay recorded, so shutdown still ends them.
      if (killing || pid === undefined || !isGroupAlive(pid)) untrack();
      child.stdout?.destroy();
      child.stderr?.destroy();
      const { output, truncated } = buffer.result();
      resolvePromise({
        output,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        truncated,
        timedOut,
        ...(aborted ? { aborted: true } : {}),
      });
    };
    function maybeFinish() {
      if (exit && streamsOpen === 0) void finish();
    }

    child.on("error", (error) => {
      if (exit || settled) return;
      buffer.push(`Failed to start command: ${error.message}`);
      exit = { code: null, signal: null };
      streamsOpen = 0;
      void finish();
    });
    child.on("exit", (code, signal) => {
      exit = { code, signal };
      // Output still buffered in the pipes arrives before "close"; a process that left the group
      // (setsid) and kept the pipes open must not hold the result hostage.
      const cleanup = options.killBackgroundOnExit ? terminate() : Promise.resolve();
      void cleanup.then(() => {
        if (!settled) drainTimer = setTimeout(() => void finish(), DRAIN_MS);
      });
      maybeFinish();
    });
  });
}
