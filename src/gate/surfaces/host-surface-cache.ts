import { realpathSync } from "node:fs";
import { lstat } from "node:fs/promises";
import { resolve } from "node:path";
import { resolveHostExecutionSurfaces, type HostExecutionSurfaces, type HostSurfaceOptions } from "./host-surfaces.js";

// resolveHostExecutionSurfaces asks git (three short processes); the gate needs the answer for every
// file change and the sandbox for every command. The answer is kept per root and folder and reused
// while none of the files it was built from changed: one lstat of each (`.git`, git's config files
// and includes, the worktree list, each literal protected entry), so an ordinary edit-test loop
// costs a dozen lstats per call instead of three git runs, and a change to any input is seen at the
// next call. An unknown answer (see host-surfaces.ts) is asked again after UNKNOWN_RETRY_MS even if
// nothing changed (a timeout may have been a busy machine), and is told to the user once per project.

export type HostSurfaceCache = {
  /** The answer for `root` (and the folders down to `cwd`), reused while its inputs are unchanged. */
  get(root: string, cwd?: string): Promise<HostExecutionSurfaces>;
  /** The last answer for `root` and `cwd` without checking it (for code that cannot wait), or undefined. */
  peek(root: string, cwd?: string): HostExecutionSurfaces | undefined;
  /** What the user has not yet been told: "surfaces unknown, and why", once per project root. */
  takeUnknownNotice(): string | undefined;
};

export type HostSurfaceCacheOptions = Omit<HostSurfaceOptions, "cwd"> & {
  /** Default 30 s. */
  unknownRetryMs?: number;
  now?: () => number;
};

const UNKNOWN_RETRY_MS = 30_000;

export function createHostSurfaceCache(options: HostSurfaceCacheOptions = {}): HostSurfaceCache {
  const { unknownRetryMs = UNKNOWN_RETRY_MS, now = Date.now, ...surfaceOptions } = options;
  const entries = new Map<string, { stamp: string; answer: HostExecutionSurfaces; at: number }>();
  const told = new Set<string>();
  const untold: string[] = [];
  const pending = new Map<string, Promise<HostExecutionSurfaces>>();
  // By real path: the gate asks with real roots, the sandbox with the roots as configured.
  const keyOf = (root: string, cwd?: string) => `${realOr(root)}\0${cwd ? realOr(cwd) : ""}`;
  return {
    peek: (root, cwd) => entries.get(keyOf(root, cwd))?.answer ?? entries.get(keyOf(root))?.answer,
    takeUnknownNotice: () => untold.shift(),
    async get(root, cwd) {
      const key = keyOf(root, cwd);
      const cached = entries.get(key);
      const fresh = !cached?.answer.unknown || now() - cached.at < unknownRetryMs;
      if (cached && fresh && (await stampOf(cached.answer.inputs)) === cached.stamp) return cached.answer;
      const running = pending.get(key);
      if (running) return running;
      const work = (async () => {
        const answer = await resolveHostExecutionSurfaces(root, { ...surfaceOptions, ...(cwd ? { cwd } : {}) });
        entries.set(key, { stamp: await stampOf(answer.inputs), answer, at: now() });
        if (answer.unknown && !told.has(answer.root)) {
          told.add(answer.root);
          untold.push(unknownNotice(answer.root, answer.unknown));
        }
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

function unknownNotice(root: string, why: string): string {
  return (
    `Which files decide what git runs on the host is unknown for ${root} (${why}). ` +
    "Until it is known, every change to the git folder, to hooks-like paths and to the files its config names asks first."
  );
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
