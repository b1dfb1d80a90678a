// The work the SSH and container benchmarks time on a remote backend and on the local one, the same
// files and the same calls on both sides: a 5,000-file tree, a grep for its one marker, a burst of
// commands. Each helper returns the work as a function for timed().
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { SandboxBackendProtocol } from "../src/backends/protocol.js";

export const FILES = 5_000;
export const BURST = 20;

/** 50 folders of `files / 50` small TypeScript files; in the 5,000-file tree one file holds NEEDLE_MARKER (twice). */
export function buildTree(root: string, files = FILES): void {
  for (let d = 0; d < 50; d++) {
    const dir = join(root, `pkg${d % 5}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < files / 50; f++) {
      const marker = d * 100 + f === 3_137 ? "NEEDLE_MARKER" : "plain";
      writeFileSync(
        join(dir, `file${f}.ts`),
        `// ${marker}\nexport const value${f} = ${d};\nfunction helper() { return "${marker}"; }\n`,
      );
    }
  }
}

export function check<T extends { error?: string }>(result: T): T {
  if (result.error) throw new Error(result.error);
  return result;
}

/** grep for NEEDLE_MARKER under `dir` of the 5,000-file tree: both matches or it throws. */
export const grepNeedle = (backend: SandboxBackendProtocol, dir: string, side: string) => async () => {
  const r = check(await backend.grep("NEEDLE_MARKER", dir, null, 1000));
  if (r.matches!.length !== 2) throw new Error(`${side} grep found ${r.matches!.length}`);
};

/** BURST sequential `echo` commands, each of which must succeed. */
export const commandBurst = (backend: SandboxBackendProtocol, side: string) => async () => {
  for (let i = 0; i < BURST; i++)
    if ((await backend.execute(`echo ${i}`)).exitCode !== 0) throw new Error(`${side} command failed`);
};
