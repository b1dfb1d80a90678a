import { join } from "node:path";
import { writeFileAtomic } from "../util/atomic-file.js";
import type { Diagnostic, Loaded } from "../util/diagnostics.js";
import { readJsonObjectFile } from "../util/json-file.js";
import { tryRealpath, verifiedTargets } from "./containment.js";

// <stateDir>/skill_trust.json: {"version": 1, "dirs": {"<canonical dir>": {"trusted_at": ISO}}}.
// Keys are stored exactly as approved and never re-resolved; load() drops any that no longer
// resolve to themselves, so swapping the approved directory for a symlink revokes the approval.

const STORE_VERSION = 1;

export class SkillTrustError extends Error {
  override name = "SkillTrustError";
}

export type SkillTrustEntry = { dir: string; trustedAt: string };

export type SkillTrustStore = {
  readonly file: string;
  /** Approved directories that still resolve to themselves (use as `approvedTargets`). */
  load(): Promise<Loaded<string[]>>;
  /** Every stored entry, verified or not, for display. */
  list(): Promise<Loaded<SkillTrustEntry[]>>;
  /** Remembers approval of a canonical directory. Throws SkillTrustError if it is not canonical. */
  approve(target: string): Promise<void>;
  /** Returns whether an entry was removed. */
  revoke(target: string): Promise<boolean>;
};

export type SkillTrustStoreOptions = {
  /** `~/.deepagents/.state`. */
  stateDir: string;
  /** Default () => new Date(). */
  now?: () => Date;
};

type StoreData = { version: number; dirs: Record<string, { trusted_at?: unknown }> };

export function createSkillTrustStore(options: SkillTrustStoreOptions): SkillTrustStore {
  const file = join(options.stateDir, "skill_trust.json");
  const now = options.now ?? (() => new Date());

  /** `strict` refuses to continue on a corrupt store so a write cannot erase other approvals. */
  async function read(strict: boolean): Promise<{ data: StoreData; diagnostics: Diagnostic[] }> {
    const empty: StoreData = { version: STORE_VERSION, dirs: {} };
    const found = await readJsonObjectFile(file);
    if (found.state === "missing") return { data: empty, diagnostics: [] };
    if (found.state === "invalid") return fail(found.reason);
    const record = found.value;
    const version = record.version;
    if (
      version !== undefined &&
      (typeof version !== "number" || !Number.isInteger(version) || version > STORE_VERSION)
    ) {
      return fail(`unsupported version ${JSON.stringify(version)}`);
    }
    const dirs = record.dirs;
    if (dirs !== undefined && (!dirs || typeof dirs !== "object" || Array.isArray(dirs)))
      return fail("'dirs' is not an object");
    return { data: { version: STORE_VERSION, dirs: (dirs ?? {}) as StoreData["dirs"] }, diagnostics: [] };

    function fail(message: string): { data: StoreData; diagnostics: Diagnostic[] } {
      if (strict) throw new SkillTrustError(`${file}: ${message}; fix or delete the file`);
      return {
        data: empty,
        diagnostics: [{ severity: "error", source: file, message: `${message}; treating as no approvals` }],
      };
    }
  }

  return {
    file,
    async load() {
      const { data, diagnostics } = await read(false);
      const { kept, dropped } = await verifiedTargets(Object.keys(data.dirs));
      for (const dir of dropped) {
        diagnostics.push({
          severity: "warning",
          source: file,
          message: `approved skill directory ${dir} no longer resolves to itself; approval ignored`,
        });
      }
      return { items: kept.sort(), diagnostics };
    },
    async list() {
      const { data, diagnostics } = await read(false);
      const items = Object.entries(data.dirs)
        .map(([dir, entry]) => ({ dir, trustedAt: typeof entry?.trusted_at === "string" ? entry.trusted_at : "" }))
        .sort((a, b) => a.dir.localeCompare(b.dir));
      return { items, diagnostics };
    },
    async approve(target) {
      if ((await tryRealpath(target)) !== target) {
        throw new SkillTrustError(
          `${target} is not a canonical existing directory (it resolves elsewhere or is missing); nothing approved`,
        );
      }
      const { data } = await read(true);
      data.dirs[target] = { trusted_at: now().toISOString() };
      await writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
    },
    async revoke(target) {
      const { data } = await read(true);
      if (!Object.hasOwn(data.dirs, target)) return false;
      delete data.dirs[target];
      await writeFileAtomic(file, `${JSON.stringify(data, null, 2)}\n`);
      return true;
    },
  };
}
