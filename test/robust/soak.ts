import { readFileSync } from "node:fs";

/** `npm run test:soak` sets DEEP_ACP_SOAK=1: the same suites, long versions. */
export const SOAK = process.env.DEEP_ACP_SOAK === "1";

/** Resident set size of a process in MB (Linux procfs). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

/** CPU time (user + system) of a process in seconds (Linux procfs). */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}
