import { readFile, rename } from "node:fs/promises";
import { join, resolve } from "node:path";
import { ensurePrivateDir, writeFileAtomic } from "../../util/atomic-file.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import { errorMessage } from "../../util/errors.js";
import { createMutex } from "../../util/mutex.js";
import type { CommandFingerprint } from "../commands/command-fingerprint.js";

// "Always allow" / "always reject" answers, remembered per project root in
// `<stateDir>/approvals.json` (0600 in a 0700 directory, written atomically). The file is re-read on
// every call so several deep-acp processes (one per editor window) see each other's decisions. A
// corrupted file is treated as empty and reported; the next write moves it aside to
// `approvals.json.corrupt` instead of silently discarding it. A command's "allow" carries the
// fingerprint of the files that decide what it runs (command-fingerprint.ts); an entry written before
// fingerprints were kept has none, and its next use asks once and records one.

export type RememberedDecision = "allow" | "deny";

export type ApprovalEntry = {
  key: string;
  decision: RememberedDecision;
  label: string;
  updatedAt: string;
  fingerprint?: CommandFingerprint;
};

type StoredEntry = Omit<ApprovalEntry, "key">;
type ApprovalsFile = { version: 1; projects: Record<string, Record<string, StoredEntry>> };

export type ApprovalStoreOptions = {
  /** Directory of approvals.json, e.g. userPaths().stateDir (~/.deepagents/.state). */
  stateDir: string;
  /** Default () => new Date(). */
  clock?: () => Date;
};

export interface ApprovalStore {
  /** Path of approvals.json. */
  readonly path: string;
  lookup(projectRoot: string, key: string): Promise<RememberedDecision | undefined>;
  remember(
    projectRoot: string,
    key: string,
    decision: RememberedDecision,
    label: string,
    fingerprint?: CommandFingerprint,
  ): Promise<void>;
  /** Entries of one project, sorted by key. */
  list(projectRoot: string): Promise<ApprovalEntry[]>;
  /** Removes one entry; resolves whether it existed. */
  forget(projectRoot: string, key: string): Promise<boolean>;
  /** Problems found the last time the file was read (corruption, dropped entries). */
  diagnostics(): Diagnostic[];
}

export function createApprovalStore(options: ApprovalStoreOptions): ApprovalStore {
  const path = join(resolve(options.stateDir), "approvals.json");
  const clock = options.clock ?? (() => new Date());
  let lastDiagnostics: Diagnostic[] = [];
  /** Serialises read-modify-write cycles within this process. */
  const exclusive = createMutex();

  async function load(): Promise<{ file: ApprovalsFile; corrupt: boolean }> {
    const empty: ApprovalsFile = { version: 1, projects: {} };
    let text: string;
    try {
      text = await readFile(path, "utf8");
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
      lastDiagnostics = missing
        ? []
        : [{ severity: "error", source: path, message: `cannot read: ${errorMessage(error)}` }];
      return { file: empty, corrupt: false };
    }
    const diagnostics: Diagnostic[] = [];
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      lastDiagnostics = [
        { severity: "warning", source: path, message: `corrupted approvals file ignored: ${errorMessage(error)}` },
      ];
      return { file: empty, corrupt: true };
    }
    const projects = (raw as { projects?: unknown } | null)?.projects;
    if (typeof projects !== "object" || projects === null || Array.isArray(projects)) {
      lastDiagnostics = [
        { severity: "warning", source: path, message: 'corrupted approvals file ignored: no "projects" object' },
      ];
      return { file: empty, corrupt: true };
    }
    // Null-prototype records: a key such as "__proto__" must stay an ordinary entry.
    const file: ApprovalsFile = { version: 1, projects: Object.create(null) as ApprovalsFile["projects"] };
    for (const [root, entries] of Object.entries(projects as Record<string, unknown>)) {
      if (typeof entries !== "object" || entries === null) continue;
      const kept = Object.create(null) as Record<string, StoredEntry>;
      for (const [key, value] of Object.entries(entries as Record<string, unknown>)) {
        const entry = value as Partial<StoredEntry> | null;
        if (entry && (entry.decision === "allow" || entry.decision === "deny")) {
          const fingerprint = fingerprintOf(entry.fingerprint);
          kept[key] = {
            decision: entry.decision,
            label: String(entry.label ?? key),
            updatedAt: String(entry.updatedAt ?? ""),
            ...(fingerprint ? { fingerprint } : {}),
          };
        } else {
          diagnostics.push({
            severity: "warning",
            source: path,
            message: `ignored malformed approval for ${root}: ${key}`,
          });
        }
      }
      file.projects[root] = kept;
    }
    lastDiagnostics = diagnostics;
    return { file, corrupt: false };
  }

  async function save(file: ApprovalsFile, corrupt: boolean): Promise<void> {
    await ensurePrivateDir(resolve(options.stateDir));
    if (corrupt) await rename(path, `${path}.corrupt`).catch(() => undefined);
    await writeFileAtomic(path, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, dirMode: 0o700 });
  }

  return {
    path,
    async lookup(projectRoot, key) {
      const { file } = await load();
      const entries = file.projects[resolve(projectRoot)];
      return entries && Object.hasOwn(entries, key) ? entries[key]!.decision : undefined;
    },
    remember(projectRoot, key, decision, label, fingerprint) {
      return exclusive(async () => {
        const { file, corrupt } = await load();
        const root = resolve(projectRoot);
        const entries = file.projects[root] ?? (Object.create(null) as Record<string, StoredEntry>);
        Object.defineProperty(entries, key, {
          value: { decision, label, updatedAt: clock().toISOString(), ...(fingerprint ? { fingerprint } : {}) },
          enumerable: true,
          writable: true,
          configurable: true,
        });
        file.projects[root] = entries;
        await save(file, corrupt);
      });
    },
    async list(projectRoot) {
      const { file } = await load();
      const entries = file.projects[resolve(projectRoot)] ?? {};
      return Object.entries(entries)
        .map(([key, entry]) => ({ key, ...entry }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    },
    forget(projectRoot, key) {
      return exclusive(async () => {
        const { file, corrupt } = await load();
        const root = resolve(projectRoot);
        const entries = file.projects[root];
        if (!entries || !Object.hasOwn(entries, key)) return false;
        delete entries[key];
        if (Object.keys(entries).length === 0) delete file.projects[root];
        await save(file, corrupt);
        return true;
      });
    },
    diagnostics: () => [...lastDiagnostics],
  };
}

/** A stored fingerprint, when it is one (an object of strings); anything else counts as none, which asks. */
function fingerprintOf(value: unknown): CommandFingerprint | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entries = Object.entries(value as Record<string, unknown>);
  if (!entries.every(([, hash]) => typeof hash === "string")) return undefined;
  return Object.assign(Object.create(null) as Record<string, string>, Object.fromEntries(entries));
}
