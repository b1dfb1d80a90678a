import type * as acp from "@agentclientprotocol/sdk/unstable";
import { z } from "zod";
import type { QuotaPool } from "../../model/limits.js";

// The providers' rate limits and quotas (model/limits.ts) as the editor sees them. Clients of the
// quotas-and-limits draft (docs/rfds/quotas-and-limits.mdx) get `quota_update`, a full snapshot of
// the pools that apply to the session, whenever it changes. The SDK (2.4.0) knows neither that
// update nor its `session.quota` client capability and drops the capability when it parses
// `initialize`, so a client also opts in with `_meta.quota` in its capabilities (the form Zed uses
// for `terminal_output`). Every other client gets a notice when a limit is near (80% used) or
// reached, once per meter and window.

type NoticeEvent = { type: "notice"; severity: "warning"; title: string; description?: string };
export type QuotaOutput = NoticeEvent | { type: "update"; update: acp.SessionUpdate };

/** Whether the client asked for `quota_update` (the draft's capability, or its `_meta` form). */
export function wantsQuotaUpdates(capabilities: acp.ClientCapabilities): boolean {
  const session = capabilities.session as Record<string, unknown> | null | undefined;
  const meta = capabilities._meta as Record<string, unknown> | null | undefined;
  return session?.quota != null || (meta?.quota != null && meta.quota !== false);
}

let lastUpdatedAt = 0;

/** updatedAt never goes back within this process (the draft's freshness rule), even if the clock does. */
function stamp(): string {
  lastUpdatedAt = Math.max(Date.now(), lastUpdatedAt + 1);
  return new Date(lastUpdatedAt).toISOString();
}

/**
 * What this process last learned of each provider's pool (quota is the account's, shared by every
 * session), for `quota/read`; `updatedAt` is when the latest of them arrived.
 */
const book = { pools: new Map<string, QuotaPool>(), updatedAt: "" };

function note(pool: QuotaPool): void {
  book.pools.set(pool.id, pool);
  book.updatedAt = stamp();
}

export const QUOTA_READ_METHOD = "quota/read";
const readParams = z.object({ sessionId: z.string().nullish(), _meta: z.unknown().optional() });

/** `quota/read` (the draft's pull): the last snapshot this process has, `pools: []` before any answer. */
export function readQuota(): { updatedAt: string; pools: QuotaPool[] } {
  return { updatedAt: book.updatedAt || stamp(), pools: [...book.pools.values()] };
}

export function registerQuotaRead(app: acp.AgentApp): acp.AgentApp {
  return app.onRequest(QUOTA_READ_METHOD, readParams, () => readQuota());
}

/** Per session: the pools it knows, for whole snapshots, and the limits it was already warned of. */
export function createQuotaTranslator(updates: boolean) {
  const pools = new Map<string, QuotaPool>();
  let sent = "";
  // Per meter and status: when the window warned of resets (Infinity: never said). A relative reset
  // (OpenAI's `6m0s`) is "now + 6 min" on every answer, so the reset itself cannot be the key.
  const warnedUntil = new Map<string, number>();
  /**
   * At session start, for a client that reads `quota_update`: what this process already knows of
   * the account's pools (from earlier sessions), so the editor shows it before the first turn.
   */
  const atStart = (): acp.SessionUpdate[] => {
    if (!updates || book.pools.size === 0 || sent) return [];
    for (const pool of book.pools.values()) pools.set(pool.id, pool);
    const snapshot = [...pools.values()];
    sent = JSON.stringify(snapshot);
    return [
      { sessionUpdate: "quota_update", updatedAt: book.updatedAt, pools: snapshot } as unknown as acp.SessionUpdate,
    ];
  };
  return Object.assign(translate, { atStart });
  function translate(pool: QuotaPool): QuotaOutput[] {
    note(pool);
    if (updates) {
      pools.set(pool.id, pool);
      const snapshot = [...pools.values()];
      const key = JSON.stringify(snapshot);
      if (key === sent) return [];
      sent = key;
      // Stamped when the data arrived (note), as quota/read reports it.
      const update = { sessionUpdate: "quota_update", updatedAt: book.updatedAt, pools: snapshot };
      return [{ type: "update", update: update as unknown as acp.SessionUpdate }];
    }
    const out: QuotaOutput[] = [];
    for (const meter of pool.meters) {
      if (meter.status !== "warning" && meter.status !== "exceeded") continue;
      const key = `${pool.id}/${meter.id}/${meter.status}`;
      const until = warnedUntil.get(key);
      if (until !== undefined && Date.now() < until) continue;
      const resets = meter.resetsAt ? Date.parse(meter.resetsAt) : NaN;
      warnedUntil.set(key, Number.isFinite(resets) ? resets : Infinity);
      const used = meter.usedPercent === undefined ? "" : `${meter.usedPercent}% used`;
      const resetText = meter.resetsAt ? `resets at ${meter.resetsAt.slice(11, 19)} UTC` : "";
      const description = [used, resetText].filter(Boolean).join(", ");
      out.push({
        type: "notice",
        severity: "warning",
        title: `${pool.label}: ${meter.label ?? meter.id} ${meter.status === "exceeded" ? "reached" : "nearly reached"}`,
        ...(description ? { description } : {}),
      });
    }
    return out;
  }
}
