import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createSessionStore } from "../../../src/transcript/store/index.js";
import type { SessionStore } from "../../../src/transcript/store/index.js";

export const REPO = resolve(__dirname, "../../..");
export const APPEND_LOOP = join(REPO, "test/fixtures/session-store/append-loop.ts");

/** A clock that moves one second per call, so every create/updateMeta gets a distinct updatedAt. */
export function steppingClock(start = "2026-03-01T00:00:00.000Z"): () => Date {
  let at = Date.parse(start);
  return () => new Date((at += 1000));
}

export type TempStore = { dir: string; store: SessionStore; open(): SessionStore; cleanup(): Promise<void> };

/** A store over a fresh temp dir; open() makes another store on the same dir (another "process"). */
export async function tempStore(clock = steppingClock(), fullPassMs?: number): Promise<TempStore> {
  const root = await mkdtemp(join(tmpdir(), "session-store-"));
  const dir = join(root, "sessions");
  const open = () => createSessionStore({ dir, clock, ...(fullPassMs !== undefined && { fullPassMs }) });
  return { dir, store: open(), open, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export type Child = {
  process: ChildProcess;
  /** Complete stdout lines so far. */
  lines: string[];
  /** Resolves once a stdout line satisfies `test`. */
  waitForLine(test: (line: string) => boolean): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>;
};

export function spawnAppendLoop(args: string[]): Child {
  const child = spawn(process.execPath, ["--import", "tsx", APPEND_LOOP, ...args], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const waiters: Array<{ test: (line: string) => boolean; resolve: () => void }> = [];
  let partial = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
    const parts = (partial + chunk).split("\n");
    partial = parts.pop()!;
    for (const line of parts) {
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (!waiter.test(line)) continue;
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  });
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }>((resolveExit) =>
    child.on("close", (code, signal) => resolveExit({ code, signal, stderr })),
  );
  return {
    process: child,
    lines,
    exited,
    waitForLine: (test) =>
      new Promise<void>((resolveLine, reject) => {
        if (lines.some(test)) return resolveLine();
        waiters.push({ test, resolve: resolveLine });
        void exited.then(({ code, signal, stderr: err }) =>
          reject(new Error(`child exited (${code ?? signal}) before the expected line: ${err}`)),
        );
      }),
  };
}

/** Kills a child if it is still running (afterEach safety net). */
export async function reap(child: Child | undefined): Promise<void> {
  if (!child || child.process.exitCode !== null || child.process.signalCode !== null) return;
  child.process.kill("SIGKILL");
  await child.exited;
}
