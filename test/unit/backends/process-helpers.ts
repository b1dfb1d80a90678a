import { readFileSync } from "node:fs";

// Process-table checks for shell tests. A zombie (exited, not yet reaped by an init that may never
// reap it) is not running, so /proc's state letter is consulted rather than kill(pid, 0) alone.

export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

/** Pids printed by a command as `pid:<n>` markers. */
export function pidsIn(text: string): number[] {
  return [...text.matchAll(/pid:(\d+)/g)].map((m) => Number(m[1]));
}

/** Process groups printed as `group:<n>` markers (a shell's `$$` is its group's id). */
export function groupsIn(text: string): number[] {
  return [...text.matchAll(/group:(\d+)/g)].map((m) => Number(m[1]));
}

/** Cleanup after a failed assertion: kills the pids and, for group ids, their whole groups. */
export function killIfRunning(pids: number[], groups: number[] = []): void {
  for (const group of groups) {
    try {
      process.kill(-group, "SIGKILL");
    } catch {
      // gone
    }
  }
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}
