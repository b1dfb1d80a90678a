// Reads bench/heap-probe.mjs, preloaded into an agent (node --expose-gc --import HEAP_PROBE, with
// HEAP_PROBE_FILE=file): on SIGUSR2 it collects garbage and writes its memory figures to the file,
// whole (written aside and renamed). Used by the memory benchmarks and test/robust/lifecycle.ts.
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";

export const HEAP_PROBE = resolve(import.meta.dirname, "..", "..", "bench", "heap-probe.mjs");

export type HeapProbe = NodeJS.MemoryUsage & {
  /** Compiled code's share of heapUsed. */
  codeUsed: number;
  /** process.getActiveResourcesInfo(), counted by kind. */
  resources: Record<string, number>;
};

/** The child's memory after a full GC, in bytes. */
export async function heapAfterGc(child: ChildProcess, file: string): Promise<HeapProbe> {
  rmSync(file, { force: true });
  child.kill("SIGUSR2");
  for (let waited = 0; !existsSync(file); waited += 20) {
    if (waited > 10_000) throw new Error("the heap probe did not answer");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return JSON.parse(readFileSync(file, "utf8")) as HeapProbe;
}
