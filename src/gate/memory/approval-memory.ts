import type { ApprovalEntry, ApprovalStore } from "./approval-store.js";
import type { Logger } from "../../util/logger.js";
import type { RememberedDecision } from "../decide/decide.js";

export type { RememberedDecision };

/** Where "always" choices live: the session in memory, or a per-project file (permissions/approval-store). */
export interface ApprovalMemory {
  lookup(key: string): RememberedDecision | undefined;
  remember(key: string, decision: RememberedDecision, label: string): void;
  /** Drops remembered choices whose key matches (a file deciding what a command runs changed). */
  forgetMatching?(matches: (key: string) => boolean): void;
}

export function createSessionApprovalMemory(): ApprovalMemory & {
  entries(): Array<{ key: string; decision: RememberedDecision; label: string }>;
} {
  const map = new Map<string, { decision: RememberedDecision; label: string }>();
  return {
    lookup: (key) => map.get(key)?.decision,
    remember: (key, decision, label) => void map.set(key, { decision, label }),
    forgetMatching(matches) {
      for (const key of [...map.keys()]) if (matches(key)) map.delete(key);
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
    remember(key: string, decision: RememberedDecision, label: string) {
      cache.set(key, { key, decision, label, updatedAt: new Date().toISOString() });
      void store
        .remember(projectRoot, key, decision, label)
        .catch((error) => logger.warn("cannot save a remembered approval", error));
    },
    forgetMatching(matches) {
      for (const key of [...cache.keys()]) {
        if (!matches(key)) continue;
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
