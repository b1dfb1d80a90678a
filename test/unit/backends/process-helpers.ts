import { isAlive } from "../../support/processes.js";

// Process-table checks for shell tests. A zombie (exited, not yet reaped by an init that may never
// reap it) is not running: isAlive consults /proc's state letter rather than kill(pid, 0) alone.
export const isRunning = isAlive;

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
