// Small helpers shared by the benchmarks: timing, medians, and a raw ndjson child process.
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";

export type BenchResult = {
  name: string;
  value: number;
  unit: string;
  baseline?: number;
  ratio?: number;
  target?: string;
  note?: string;
};

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median wall time of `runs` calls after one untimed warm-up call (JIT, file cache, connections). */
export async function timed(runs: number, fn: () => unknown): Promise<number> {
  await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return median(times);
}

export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/** A child speaking newline-delimited JSON; `next(predicate)` resolves with the first matching line. */
export function ndjsonChild(command: string, args: string[], env: NodeJS.ProcessEnv, cwd?: string) {
  const child: ChildProcess = spawn(command, args, { env, cwd, stdio: ["pipe", "pipe", "inherit"] });
  let buffer = "";
  const waiting: Array<{ predicate: (m: any) => boolean; resolve: (m: any) => void }> = [];
  const seen: any[] = [];
  /** When each message of `seen` arrived (performance.now(), same index). */
  const arrived: number[] = [];
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      let message: any;
      try {
        message = JSON.parse(line);
      } catch {
        continue;
      }
      seen.push(message);
      arrived.push(performance.now());
      for (const w of [...waiting]) {
        if (w.predicate(message)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(message);
        }
      }
    }
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return {
    child,
    seen,
    arrived,
    send: (message: unknown) => child.stdin!.write(JSON.stringify(message) + "\n"),
    next: (predicate: (m: any) => boolean) =>
      new Promise<any>((resolve) => {
        const found = seen.find(predicate);
        if (found) resolve(found);
        else waiting.push({ predicate, resolve });
      }),
    async stop() {
      child.stdin!.end();
      const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident set size of a process, from procfs (Linux). */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * CPU time a process has used so far, in milliseconds: the sum over its threads of the kernel's
 * nanosecond run-time counter (/proc/PID/task/TID/schedstat), because /proc/PID/stat counts in 10 ms
 * ticks, too coarse for one prompt. Threads that exit between two readings drop out of the sum, so
 * compare readings taken while a process keeps its threads (Node's do; worker threads stay while busy).
 */
export function cpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // The thread ended after the directory was listed.
    }
  }
  return ns / 1e6;
}

/** "min-max" of values, rounded. */
export function spread(values: number[], digits = 1): string {
  return `${round(Math.min(...values), digits)}-${round(Math.max(...values), digits)}`;
}

/** The agent's memory after a full GC, through bench/heap-probe.mjs. */
export { heapAfterGc } from "../test/support/heap-probe.js";
