import { join } from "node:path";
import { writeFileAtomic } from "../../../util/atomic-file.js";
import { readJsonObjectFile } from "../../../util/json-file.js";
import { createMutex } from "../../../util/mutex.js";
import type { DevContainerPlan } from "./devcontainer-plan.js";

// <stateDir>/devcontainer_trust.json: {"version": 1, "plans": {"<fingerprint>": {root, definition,
// trusted_at}}}. An "always" answer to a dev container's dialog is kept by the plan's fingerprint
// (the root, the mount mode, the definition's and the Dockerfile's content): a changed definition or
// Dockerfile has another fingerprint and asks again. A broken file means "nothing trusted" (it asks).

export type DevContainerTrust = {
  readonly file: string;
  isTrusted(plan: DevContainerPlan): Promise<boolean>;
  trust(plan: DevContainerPlan): Promise<void>;
  /** The kept "always" answers, by fingerprint (/permissions). */
  list(): Promise<Array<{ fingerprint: string; root: string; definition: string; trustedAt: string }>>;
  /** Forgets one: the next start of that dev container asks again. */
  forget(fingerprint: string): Promise<boolean>;
};

type Entry = { root?: unknown; definition?: unknown; trusted_at?: unknown };

const lock = createMutex();

export function createDevContainerTrust(stateDir: string, now: () => Date = () => new Date()): DevContainerTrust {
  const file = join(stateDir, "devcontainer_trust.json");
  const read = async (): Promise<Record<string, Entry>> => {
    const found = await readJsonObjectFile(file);
    if (found.state !== "ok") return {};
    const plans = found.value.plans;
    return plans && typeof plans === "object" && !Array.isArray(plans) ? (plans as Record<string, Entry>) : {};
  };
  return {
    file,
    async isTrusted(plan) {
      const entry = (await read())[plan.fingerprint];
      return entry !== undefined && entry.root === plan.root;
    },
    async trust(plan) {
      await lock(async () => {
        const plans = await read();
        plans[plan.fingerprint] = { root: plan.root, definition: plan.dev.file, trusted_at: now().toISOString() };
        await writeFileAtomic(file, JSON.stringify({ version: 1, plans }, null, 2) + "\n");
      });
    },
    async list() {
      const text = (value: unknown) => (typeof value === "string" ? value : "");
      return Object.entries(await read())
        .filter(([, entry]) => typeof entry.root === "string")
        .map(([fingerprint, entry]) => ({
          fingerprint,
          root: text(entry.root),
          definition: text(entry.definition),
          trustedAt: text(entry.trusted_at),
        }));
    },
    forget: (fingerprint) =>
      lock(async () => {
        const plans = await read();
        if (!(fingerprint in plans)) return false;
        delete plans[fingerprint];
        await writeFileAtomic(file, JSON.stringify({ version: 1, plans }, null, 2) + "\n");
        return true;
      }),
  };
}
