import type { ClientChannel } from "ssh2";
import { createCommandOutput } from "../processes/output-buffer.js";
import type { ExecuteOptions, ExecuteResponse } from "../protocol.js";
import type { SshConnection } from "./ssh-connection.js";

// Commands on the remote. Each runs in its own exec channel as the leader of a new session
// (setsid), so its process group id is its pid, which it reports on the first line of stdout before
// the command starts. OpenSSH ignores signals sent over a channel, so cancel and timeout kill the
// group from a second channel with `kill -- -PGID` (TERM, then KILL after a grace period). A
// dropped connection ends the call at once with a clear message instead of waiting for a close
// that never comes.

export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

const PID_MARK = "\u001eDEEPACP-PGID ";

/**
 * The remote command: cd, then a session leader that prints its pid (= its process group id) and
 * runs the user's command under bash (else sh) with stdin closed. The shell sshd starts already
 * leads its own session; anywhere else `setsid -w` makes a new one (forking, and waiting so the exit
 * status still comes through). With `killBackground`, the leader then stops what the command left
 * running in its group (TERM, which it ignores itself) and exits with the command's status: that
 * costs no second channel, unlike a kill sent from here.
 */
export function wrapCommand(command: string, cwd: string, killBackground = true): string {
  const shell = `if command -v bash >/dev/null 2>&1; then s=bash; else s=/bin/sh; fi`;
  const run = killBackground
    ? `"$s" -c "$1" </dev/null; c=$?; trap '' TERM; kill -TERM -- -$$ 2>/dev/null; exit $c`
    : `exec "$s" -c "$1" </dev/null`;
  const inner = `printf '${PID_MARK.replace("\u001e", "\\036")}%s\\n' "$$"; ${shell}; ${run}`;
  // OpenSSH starts each session's shell as a session leader: then exec keeps that pid as the group
  // id and no fork is needed (setsid -w would also print a note when the command is killed).
  const leader = `[ "$(cut -d' ' -f5 /proc/$$/stat 2>/dev/null)" = "$$" ]`;
  const plain = `exec /bin/sh -c ${shellQuote(inner)} sh ${shellQuote(command)}`;
  const session = `if ${leader} || ! command -v setsid >/dev/null 2>&1; then ${plain}; else exec setsid -w /bin/sh -c ${shellQuote(inner)} sh ${shellQuote(command)}; fi`;
  return `cd -- ${shellQuote(cwd)} 2>/dev/null || { echo "working directory does not exist: ${cwd.replace(/[^A-Za-z0-9_./ -]/g, "?")}" >&2; exit 127; }; ${session}`;
}

/** Kills a remote process group: TERM, then KILL after `graceMs` if anything is left. */
export function killGroupCommand(pgid: number, graceMs: number): string {
  const steps = Math.max(1, Math.ceil(graceMs / 100));
  return `kill -TERM -- -${pgid} 2>/dev/null || exit 0; i=0; while [ $i -lt ${steps} ] && kill -0 -- -${pgid} 2>/dev/null; do sleep 0.1; i=$((i+1)); done; kill -KILL -- -${pgid} 2>/dev/null; exit 0`;
}

export type RemoteExecOptions = ExecuteOptions & {
  cwd: string;
  timeoutMs: number;
  maxOutputChars: number;
  killGraceMs: number;
  killBackgroundOnExit: boolean;
};

/** Runs a finished-when-closed command and returns its stdout (for the kill helper). */
async function runQuiet(connection: SshConnection, command: string): Promise<void> {
  const channel = await connection.exec(command);
  await new Promise<void>((resolve) => {
    channel.on("data", () => {});
    channel.stderr.on("data", () => {});
    channel.once("close", () => resolve());
  });
}

/** How long to wait for output held open by a process that escaped the group, after the exit. */
const DRAIN_MS = 250;

export async function executeRemote(
  connection: SshConnection,
  command: string,
  options: RemoteExecOptions,
): Promise<ExecuteResponse> {
  const empty: ExecuteResponse = { output: "", exitCode: null, signal: null, truncated: false, timedOut: false };
  if (options.signal?.aborted) return { ...empty, aborted: true };
  let channel: ClientChannel;
  let dropped: Promise<string>;
  try {
    dropped = connection.whenDropped();
    channel = await connection.exec(wrapCommand(command, options.cwd, options.killBackgroundOnExit));
    channel.end();
  } catch (error) {
    return { ...empty, output: `Failed to start command on ${connection.target}: ${(error as Error).message}` };
  }

  return new Promise<ExecuteResponse>((resolve) => {
    const out = createCommandOutput(options.maxOutputChars, options.onOutput);
    const emit = out.emit;
    let pgid: number | undefined;
    let head = "";
    let marker: boolean | undefined;
    let timedOut = false;
    let aborted = false;
    let lost: string | undefined;
    let exit: { code: number | null; signal: string | null } | undefined;
    let killing: Promise<void> | undefined;
    let settled = false;
    let drainTimer: NodeJS.Timeout | undefined;

    const terminate = () => {
      if (pgid === undefined || lost) return Promise.resolve();
      killing ??= runQuiet(connection, killGroupCommand(pgid, options.killGraceMs)).catch(() => {});
      return killing;
    };
    const finish = async () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (drainTimer) clearTimeout(drainTimer);
      options.signal?.removeEventListener("abort", onAbort);
      if (killing) await killing;
      channel.close();
      if (lost) out.lost(lost);
      const { output, truncated } = out.result();
      resolve({
        output,
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        truncated,
        timedOut,
        ...(aborted ? { aborted: true } : {}),
      });
    };
    // Stops the command: kill its group once its pid is known (the data handler does it when the
    // pid arrives later); a command that never reported one is left to the channel close.
    const stopCommand = () => {
      if (pgid !== undefined) void terminate().then(() => void finish());
      else if (marker === false) void finish();
      else setTimeout(() => void finish(), 5000).unref();
    };
    const onAbort = () => {
      aborted = true;
      stopCommand();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stopCommand();
    }, options.timeoutMs);
    options.signal?.addEventListener("abort", onAbort, { once: true });
    // Aborted while the channel was opening: the listener above will never fire.
    if (options.signal?.aborted) onAbort();
    void dropped.then((reason) => {
      lost = reason;
      void finish();
    });

    channel.setEncoding("utf8");
    channel.stderr.setEncoding("utf8");
    channel.on("data", (chunk: string) => {
      if (pgid !== undefined || marker === false) return emit(chunk);
      head += chunk;
      // The wrapper prints the mark before anything else; output without it (a failed cd) is plain.
      if (!head.startsWith(PID_MARK.slice(0, Math.min(head.length, PID_MARK.length)))) {
        marker = false;
        emit(head);
        head = "";
        return;
      }
      const newline = head.indexOf("\n");
      if (newline === -1) return;
      pgid = Number(head.slice(PID_MARK.length, newline));
      const rest = head.slice(newline + 1);
      head = "";
      emit(rest);
      if (aborted || timedOut) void terminate().then(() => void finish());
    });
    channel.stderr.on("data", (chunk: string) => emit(chunk));
    channel.on("exit", (code: number | null, signal?: string) => {
      exit = { code: signal ? null : code, signal: signal ? `SIG${signal}` : null };
      // The wrapper already stopped the group; something still holding the output open ignored
      // TERM (or left the group): kill what is left from a second channel, then stop waiting.
      if (!settled) {
        drainTimer = setTimeout(() => {
          void (options.killBackgroundOnExit ? terminate() : Promise.resolve()).then(() => void finish());
        }, DRAIN_MS);
      }
    });
    channel.once("close", () => {
      if (head) emit(head);
      head = "";
      if (exit || settled) return void finish();
      // No exit status: the connection went (its close may be reported just after the channel's).
      void Promise.race([
        dropped,
        new Promise<string>((r) =>
          setTimeout(
            () => r(`${connection.target}: the channel closed before the command reported an exit status`),
            1000,
          ),
        ),
      ]).then((reason) => {
        lost ??= reason;
        void finish();
      });
    });
  });
}

export type StreamRun = { code: number | null; stderr: string; timedOut: boolean; lost?: string };

/** Runs a helper command (search) and streams its stdout; `stop()` ends it early. */
export async function streamRemote(
  connection: SshConnection,
  command: string,
  timeoutMs: number,
  onStdout: (chunk: Buffer, stop: () => void) => void,
): Promise<StreamRun> {
  const dropped = connection.whenDropped();
  const channel = await connection.exec(command);
  return new Promise((resolve) => {
    let stderr = "";
    let timedOut = false;
    let stopped = false;
    let code: number | null = null;
    let lost: string | undefined;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      channel.removeAllListeners("data");
      channel.close();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    void dropped.then((reason) => {
      lost = reason;
      clearTimeout(timer);
      resolve({ code, stderr, timedOut, lost });
    });
    channel.on("data", (chunk: Buffer) => {
      if (!stopped) onStdout(chunk, stop);
    });
    channel.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString("utf8");
    });
    channel.on("exit", (exitCode: number | null) => {
      code = exitCode;
    });
    channel.once("close", () => {
      clearTimeout(timer);
      resolve({ code, stderr, timedOut, ...(lost ? { lost } : {}) });
    });
  });
}
