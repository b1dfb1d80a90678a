import { spawn } from "node:child_process";

// Every process group the agent starts (shell commands, hooks, MCP servers) runs detached, so a
// signal that kills the agent does not reach it. Two things keep such groups from outliving us:
//
// - the registry: shutdown (EOF, SIGTERM, SIGINT, SIGHUP) and process exit SIGKILL every group
//   still recorded here, synchronously;
// - the lifeline: a SIGKILLed agent runs no code at all, so each group also gets a tiny reaper, a
//   `sh` in its own process group reading a pipe only the agent holds. When the agent dies the
//   kernel closes the pipe, `read` sees EOF, and the reaper kills the group. When the group ends
//   normally the agent writes a line first and the reaper exits without killing anything.
//
// Recording groups in a file and reaping them at the next start was the alternative; it leaves
// orphans running until the editor happens to start the agent again (often never, or hours later),
// so the lifeline is what guarantees "no process outlives a killed agent by more than a moment".

/** `read` gets a line: stand down. `read` fails (EOF, the agent died): kill the group. */
const REAPER_SCRIPT = 'read line || kill -KILL -"$0" 2>/dev/null'; // dash's kill takes no "--"

type Tracked = { release: () => void };

const groups = new Map<number, Tracked>();
let exitHookInstalled = false;

function startLifeline(pgid: number): () => void {
  let reaper;
  try {
    reaper = spawn("/bin/sh", ["-c", REAPER_SCRIPT, String(pgid)], {
      stdio: ["pipe", "ignore", "ignore"],
      detached: true,
      // Long-lived and readable by any command (/proc/<pid>/environ): nothing of the agent's environment.
      env: process.env.PATH === undefined ? {} : { PATH: process.env.PATH },
    });
  } catch {
    return () => undefined;
  }
  reaper.on("error", () => undefined);
  reaper.stdin?.on("error", () => undefined);
  // Neither the reaper nor its pipe may keep a finished agent's event loop alive.
  reaper.unref();
  (reaper.stdin as unknown as { _handle?: { unref?: () => void } } | null)?._handle?.unref?.();
  return () => {
    reaper.stdin?.end("done\n");
  };
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => killTrackedGroups());
}

export type TrackOptions = {
  /** Start a reaper that kills the group if this process dies without cleaning up. Default true. */
  lifeline?: boolean;
};

/**
 * Records a process group (its leader's pid) until the returned function is called, which the
 * owner does once the group is gone or has been killed.
 */
export function trackProcessGroup(pgid: number, options: TrackOptions = {}): () => void {
  if (process.platform === "win32" || !Number.isInteger(pgid) || pgid <= 1) return () => undefined;
  installExitHook();
  const release = options.lifeline === false ? () => undefined : startLifeline(pgid);
  const tracked = { release };
  groups.set(pgid, tracked);
  return () => {
    if (groups.get(pgid) !== tracked) return;
    groups.delete(pgid);
    release();
  };
}

/** SIGKILLs every recorded group now (shutdown, exit). Returns how many were signalled. */
export function killTrackedGroups(): number {
  let count = 0;
  for (const [pgid, tracked] of groups) {
    try {
      process.kill(-pgid, "SIGKILL");
      count++;
    } catch {
      // already gone
    }
    tracked.release();
  }
  groups.clear();
  return count;
}
