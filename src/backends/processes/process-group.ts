import { readdirSync, readFileSync } from "node:fs";

// Commands run detached, so each is the leader of its own process group (pgid = its pid). Killing
// the group reaches every process the command started, including backgrounded grandchildren.

/** Live (non-zombie) members of process group `pgid`; undefined when /proc cannot tell. */
function liveMembersFromProc(pgid: number): number | undefined {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  let count = 0;
  for (const name of entries) {
    if (name.charCodeAt(0) < 48 || name.charCodeAt(0) > 57) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") count++;
  }
  return count;
}

/** Whether any process of the group is still running (zombies, which cannot run, do not count). */
export function isGroupAlive(pgid: number): boolean {
  const fromProc = liveMembersFromProc(pgid);
  if (fromProc !== undefined) return fromProc > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // already gone
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SIGTERM to the whole group, then SIGKILL to whatever is left after `graceMs`. Resolves once the
 * group is gone (or, for a process stuck in the kernel, shortly after SIGKILL).
 */
export async function killProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!isGroupAlive(pgid)) return;
  signalGroup(pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    await sleep(25);
    if (!isGroupAlive(pgid)) return;
  }
  signalGroup(pgid, "SIGKILL");
  for (let i = 0; i < 40 && isGroupAlive(pgid); i++) await sleep(25);
}
