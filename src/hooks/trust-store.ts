import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { canonicalRoot } from "../util/path-within.js";
import { ensurePrivateDir, writeFileAtomic } from "../util/atomic-file.js";

// Remembered "always allow" answers for project hooks: one entry per canonical project root, bound
// to the SHA-256 of the hooks file bytes the user reviewed, so any edit to the file asks again.

export const HOOK_TRUST_FILE = "hooks_trust.json";

export type HookTrustStoreOptions = {
  /** ~/.deepagents/.state; created 0700. */
  stateDir: string;
  /** Default Date. */
  clock?: { now(): number };
};

/**
 * `sha256` is what the approval is bound to (hookTrustFingerprint: the hooks file plus the scripts
 * its commands run); `hooks_file` and `scripts` record what was approved, so a later dialog can say
 * which file changed. Older entries hold only the hooks file's digest in `sha256`.
 */
export type HookTrustEntry = {
  sha256: string;
  trusted_at: string;
  hooks_file?: string;
  scripts?: Record<string, string>;
};

export type HookTrustDetails = { hooksFile: string; scripts: Record<string, string> };

export interface HookTrustStore {
  readonly file: string;
  isTrusted(projectRoot: string, sha256: string): Promise<boolean>;
  /** Remembers `sha256` for the root, replacing an earlier fingerprint. */
  trust(projectRoot: string, sha256: string, details?: HookTrustDetails): Promise<void>;
  /** The remembered approval of a root, if any. */
  entry(projectRoot: string): Promise<HookTrustEntry | undefined>;
  revoke(projectRoot: string): Promise<void>;
  list(): Promise<Record<string, HookTrustEntry>>;
}

type TrustFile = { version: 1; projects: Record<string, HookTrustEntry> };

export function createHookTrustStore(options: HookTrustStoreOptions): HookTrustStore {
  const file = join(options.stateDir, HOOK_TRUST_FILE);
  const clock = options.clock ?? Date;
  // Writes are read-modify-write; chaining them keeps two quick answers from losing one.
  let writes: Promise<unknown> = Promise.resolve();

  // An unreadable or corrupt file trusts nothing (fail closed); the next write replaces it.
  const read = async (): Promise<TrustFile> => {
    try {
      const parsed: unknown = JSON.parse(await readFile(file, "utf8"));
      if (isTrustFile(parsed)) return parsed;
    } catch {
      // fall through
    }
    return { version: 1, projects: {} };
  };

  const update = (change: (data: TrustFile) => void): Promise<void> => {
    const next = writes.then(async () => {
      const data = await read();
      change(data);
      await ensurePrivateDir(options.stateDir);
      await writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
    });
    writes = next.catch(() => undefined);
    return next;
  };

  return {
    file,
    async isTrusted(projectRoot, sha256) {
      const data = await read();
      return data.projects[canonicalRoot(projectRoot)]?.sha256 === sha256;
    },
    async trust(projectRoot, sha256, details) {
      const root = canonicalRoot(projectRoot);
      await update((data) => {
        data.projects[root] = {
          sha256,
          trusted_at: new Date(clock.now()).toISOString(),
          ...(details ? { hooks_file: details.hooksFile, scripts: details.scripts } : {}),
        };
      });
    },
    async entry(projectRoot) {
      return (await read()).projects[canonicalRoot(projectRoot)];
    },
    async revoke(projectRoot) {
      const root = canonicalRoot(projectRoot);
      await update((data) => {
        delete data.projects[root];
      });
    },
    async list() {
      return (await read()).projects;
    },
  };
}

function isTrustFile(value: unknown): value is TrustFile {
  if (typeof value !== "object" || value === null) return false;
  const projects = (value as { projects?: unknown }).projects;
  if (typeof projects !== "object" || projects === null || Array.isArray(projects)) return false;
  return Object.values(projects).every(
    (entry) => typeof entry === "object" && entry !== null && typeof (entry as HookTrustEntry).sha256 === "string",
  );
}
