import { realpathSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { resolve } from "node:path";
import { resolveHostExecutionSurfaces, type HostExecutionSurfaces, type HostSurfaceOptions } from "./host-surfaces.js";

// resolveHostExecutionSurfaces asks git (three short processes); the gate needs the answer for every
// file change and the sandbox for every command. The answer is kept per root and folder and reused
// while none of the files it was built from changed: one lstat of each (`.git`, git's config files
// and includes, the worktree list, each literal protected entry), so an ordinary edit-test loop
// costs a dozen lstats per call instead of three git runs, and a change to any input is seen at the
// next call.

export type HostSurfaceCache = {
  /** The answer for `root` (and the folders down to `cwd`), reused while its inputs are unchanged. */
  get(root: string, cwd?: string): Promise<HostExecutionSurfaces>;
  /** The last answer for `root` and `cwd` without checking it (for code that cannot wait), or undefined. */
  peek(root: string, cwd?: string): HostExecutionSurfaces | undefined;
};

export function createHostSurfaceCache(options: Omit<HostSurfaceOptions, "cwd"> = {}): HostSurfaceCache {
  const entries = new Map<string, { stamp: string; answer: HostExecutionSurfaces }>();
  const pending = new Map<string, Promise<HostExecutionSurfaces>>();
  // By real path: the gate asks with real roots, the sandbox with the roots as configured.
  const keyOf = (root: string, cwd?: string) => `${realOr(root)}\0${cwd ? realOr(cwd) : ""}`;
  return {
    peek: (root, cwd) => entries.get(keyOf(root, cwd))?.answer ?? entries.get(keyOf(root))?.answer,
    async get(root, cwd) {
      const key = keyOf(root, cwd);
      const cached = entries.get(key);
      if (cached && (await stampOf(cached.answer.inputs)) === cached.stamp) return cached.answer;
      const running = pending.get(key);
      if (running) return running;
      const work = (async () => {
        const answer = await resolveHostExecutionSurfaces(root, { ...options, ...(cwd ? { cwd } : {}) });
        entries.set(key, { stamp: await stampOf(answer.inputs), answer });
        return answer;
      })();
      pending.set(key, work);
      try {
        return await work;
      } finally {
        pending.delete(key);
      }
    },
  };
}

/** Identity and change times of each input (missing ones count as "-"). */
async function stampOf(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (path) => {
      const info = await lstat(path, { bigint: true }).catch(() => undefined);
      return info ? `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : "-";
    }),
  );
  return parts.join("|");
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}
