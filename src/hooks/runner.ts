import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import { trackProcessGroup } from "../util/process-groups.js";

/** Claude Code's per-stream cap; later bytes are read and dropped so the hook never blocks on a full pipe. */
export const MAX_HOOK_OUTPUT_BYTES = 100_000;

export type SpawnFunction = typeof nodeSpawn;

export type HookCommandOptions = {
  /** Run through `shell -c command`; ignored when `argv` is given. */
  command?: string;
  /** Run directly without a shell. */
  argv?: readonly string[];
  cwd: string;
  env: Record<string, string>;
  /** Written to stdin, then stdin is closed. */
  input: string;
  timeoutMs: number;
  /** Aborting kills the process group; the result has `cancelled: true`. */
  signal?: AbortSignal;
  /** Default MAX_HOOK_OUTPUT_BYTES. */
  maxOutputBytes?: number;
  /** Default node:child_process spawn. */
  spawn?: SpawnFunction;
  /** Default "/bin/sh". */
  shell?: string;
  /**
   * After killing the group, how long to wait for the pipes to close before giving up on them
   * (a process that left the group could hold them open). Default 2000 ms.
   */
  killGraceMs?: number;
};

export type HookCommandResult = {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  timedOut: boolean;
  cancelled: boolean;
  /** Set when the process could not be started (missing program, bad cwd). */
  spawnError?: string;
};

/** The result of a hook command that was never started; `spawnError` says why. */
export function notRunResult(spawnError: string): HookCommandResult {
  return { ...emptyResult(), spawnError };
}

function emptyResult(): HookCommandResult {
  return {
    exitCode: null,
    signal: null,
    stdout: "",
    stderr: "",
    stdoutTruncated: false,
    stderrTruncated: false,
    timedOut: false,
    cancelled: false,
  };
}

/**
 * Runs one hook command in its own process group. Never rejects: every failure is in the result.
 * On timeout or abort the whole group gets SIGKILL, so children the hook started die with it.
 */
export function runHookCommand(options: HookCommandOptions): Promise<HookCommandResult> {
  const cap = options.maxOutputBytes ?? MAX_HOOK_OUTPUT_BYTES;
  const spawnFn = options.spawn ?? nodeSpawn;
  const result = emptyResult();
  if (options.signal?.aborted) return Promise.resolve({ ...result, cancelled: true });

  const [file, args] = options.argv
    ? [options.argv[0]!, options.argv.slice(1)]
    : [options.shell ?? "/bin/sh", ["-c", options.command ?? ""]];

  return new Promise((resolve) => {
    let child: ChildProcess;
    let untrack = () => {};
    try {
      child = spawnFn(file, args, {
        cwd: options.cwd,
        env: options.env,
        detached: true,
        stdio: ["pipe", "pipe", "pipe"],
      });
      if (child.pid !== undefined) untrack = trackProcessGroup(child.pid);
    } catch (error) {
      resolve(notRunResult(error instanceof Error ? error.message : String(error)));
      return;
    }
    const stdout = createCappedSink(cap);
    const stderr = createCappedSink(cap);
    let settled = false;
    let graceTimer: NodeJS.Timeout | undefined;

    const finish = () => {
      if (settled) return;
      settled = true;
      untrack();
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener("abort", onAbort);
      result.stdout = stdout.text();
      result.stderr = stderr.text();
      result.stdoutTruncated = stdout.truncated;
      result.stderrTruncated = stderr.truncated;
      resolve(result);
    };

    const killGroup = () => {
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          child.kill("SIGKILL");
        }
      }
      graceTimer ??= setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
        finish();
      }, options.killGraceMs ?? 2000);
    };

    const onAbort = () => {
      result.cancelled = true;
      killGroup();
    };

    const timeoutTimer = setTimeout(() => {
      result.timedOut = true;
      killGroup();
    }, options.timeoutMs);

    child.stdout?.on("data", stdout.push);
    child.stderr?.on("data", stderr.push);
    child.on("error", (error) => {
      if (child.pid === undefined) {
        result.spawnError = error.message;
        finish();
      }
    });
    child.on("close", (code, signal) => {
      result.exitCode = code;
      result.signal = signal;
      finish();
    });
    options.signal?.addEventListener("abort", onAbort, { once: true });

    // A hook may exit without reading stdin; the resulting EPIPE is not an error of ours.
    child.stdin?.on("error", () => {});
    child.stdin?.end(options.input);
  });
}

function createCappedSink(cap: number) {
  const chunks: Buffer[] = [];
  let size = 0;
  let truncated = false;
  return {
    push: (chunk: Buffer) => {
      if (size >= cap) {
        truncated = true;
        return;
      }
      const room = cap - size;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (kept.length < chunk.length) truncated = true;
      chunks.push(kept);
      size += kept.length;
    },
    text: () => Buffer.concat(chunks).toString("utf8"),
    get truncated() {
      return truncated;
    },
  };
}
