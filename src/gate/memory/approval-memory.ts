import type { ApprovalEntry, ApprovalStore } from "./approval-store.js";
import type { Logger } from "../../util/logger.js";
import type { RememberedDecision } from "../decide/decide.js";
import type { CommandFingerprint } from "../commands/command-fingerprint.js";

export type { RememberedDecision };

/** Where "always" choices live: the session in memory, or a per-project file (permissions/approval-store). */
export interface ApprovalMemory {
  lookup(key: string): RememberedDecision | undefined;
  /** The fingerprint a command's "always" was given with (command-fingerprint.ts); undefined before they were kept. */
  fingerprint(key: string): CommandFingerprint | undefined;
  remember(key: string, decision: RememberedDecision, label: string, fingerprint?: CommandFingerprint): void;
  /** Drops remembered choices whose key matches (a file deciding what a command runs changed). */
  forgetMatching?(matches: (key: string, fingerprint: CommandFingerprint | undefined) => boolean): void;
}

type SessionEntry = { decision: RememberedDecision; label: string; fingerprint?: CommandFingerprint };

export function createSessionApprovalMemory(): ApprovalMemory & {
  entries(): Array<{ key: string } & SessionEntry>;
} {
  const map = new Map<string, SessionEntry>();
  return {
    lookup: (key) => map.get(key)?.decision,
    fingerprint: (key) => map.get(key)?.fingerprint,
    remember: (key, decision, label, fingerprint) =>
      void map.set(key, { decision, label, ...(fingerprint ? { fingerprint } : {}) }),
    forgetMatching(matches) {
      for (const [key, entry] of [...map]) if (matches(key, entry.fingerprint)) map.delete(key);
    },
    entries: () => [...map].map(([key, v]) => ({ key, ...v })),
  };
}

export type PersistentApprovalMemory = ApprovalMemory & {
  /** Reads the project's remembered choices once (call before the first turn). */
  load(): Promise<void>;
  /** Reads them again (/reload: the file may have been edited). */
  reload(): Promise<void>;
  entries(): ApprovalEntry[];
  forget(key: string): Promise<boolean>;
};

/**
 * "Always" choices, remembered per project root in ~/.deepagents/.state/approvals.json. Lookups are
 * synchronous (the agent asks in the middle of a turn), so entries are cached in memory and every
 * new choice is written through.
 */
export function createPersistentApprovalMemory(
  store: ApprovalStore,
  projectRoot: string,
  logger: Logger,
): PersistentApprovalMemory {
  const cache = new Map<string, ApprovalEntry>();
  let loaded: Promise<void> | undefined;
  return {
    load() {
      // Shared by the sessions of a project: read once; later changes are made through this object.
      loaded ??= this.reload();
      return loaded;
    },
    async reload() {
      const entries = await store.list(projectRoot).catch((error) => {
        logger.warn("cannot read remembered approvals", error);
        return [];
      });
      cache.clear();
      for (const entry of entries) cache.set(entry.key, entry);
    },
    lookup: (key) => cache.get(key)?.decision,
    fingerprint: (key) => cache.get(key)?.fingerprint,
    remember(key: string, decision: RememberedDecision, label: string, fingerprint?: CommandFingerprint) {
      const kept = fingerprint ? { fingerprint } : {};
      cache.set(key, { key, decision, label, updatedAt: new Date().toISOString(), ...kept });
      void store
        .remember(projectRoot, key, decision, label, fingerprint)
        .catch((error) => logger.warn("cannot save a remembered approval", error));
    },
    forgetMatching(matches) {
      for (const [key, entry] of [...cache]) {
        if (!matches(key, entry.fingerprint)) continue;
        cache.delete(key);
        void store.forget(projectRoot, key).catch((error) => logger.warn("cannot forget a remembered approval", error));
      }
    },
    entries: () => [...cache.values()].sort((a, b) => a.key.localeCompare(b.key)),
    async forget(key) {
      const existed = cache.delete(key);
      return (await store.forget(projectRoot, key)) || existed;
    },
  };
}
