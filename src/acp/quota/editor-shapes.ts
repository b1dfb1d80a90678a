import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { QuotaMeter, QuotaPool } from "../../model/limits.js";

// The providers' limits (model/limits.ts) in the shapes editors already read from the two flagship
// adapters, each only for a client that asks for it:
// - codex-acp's `_account/rate_limits_update` (docs/rate-limits-extension.md): a connection-level
//   push, one limit per `limitId`, sent when it differs from the last one sent for that id. Ours are
//   one limit per meter (`<pool>:<meter>`, its window as `primary`). For a JetBrains AIR client
//   (`clientCapabilities._meta.jetbrains.air`), or one that declares `_meta.rateLimits`; the agent then
//   lists `agentCapabilities._meta.rateLimits: {}`, as codex-acp does.
// - claude-agent-acp's `usage_update._meta["_claude/rateLimit"]` (one window per update: status
//   allowed / allowed_warning / rejected, resetsAt in Unix seconds, rateLimitType, utilization 0-1),
//   for a client that declares `_meta["_claude/rateLimit"]`; like claude-agent-acp, only once the
//   session's context use is known (the update's `used` and `size` are required).
// - JetBrains' shared key `PromptResponse._meta.quota` (codex-acp's QuotaMeta: the turn's token
//   counts, in total and per model), for a JetBrains client (`_meta.jetbrains`).

export type QuotaShapes = { accountRateLimits: boolean; claudeRateLimit: boolean; promptQuota: boolean };

export const ACCOUNT_RATE_LIMITS_METHOD = "_account/rate_limits_update";
export const CLAUDE_RATE_LIMIT_KEY = "_claude/rateLimit";

const declared = (value: unknown) => value != null && value !== false;

export function quotaShapesOf(capabilities: acp.ClientCapabilities): QuotaShapes {
  const meta = (capabilities._meta ?? {}) as Record<string, unknown>;
  const jetbrains = meta.jetbrains as Record<string, unknown> | null | undefined;
  const air = typeof jetbrains === "object" && jetbrains !== null && declared(jetbrains.air);
  return {
    accountRateLimits: air || declared(meta.rateLimits),
    claudeRateLimit: declared(meta[CLAUDE_RATE_LIMIT_KEY]),
    promptQuota: typeof jetbrains === "object" && jetbrains !== null,
  };
}

const unixSeconds = (iso: string | undefined): number | null => {
  const ms = iso ? Date.parse(iso) : NaN;
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
};

/** codex-acp's `rateLimits` of one meter. */
export function accountRateLimits(pool: QuotaPool, meter: QuotaMeter) {
  return {
    rateLimits: {
      limitId: `${pool.id}:${meter.id}`,
      limitName: `${pool.label}: ${meter.label ?? meter.id}`,
      normalModelSlug: null,
      primary: {
        usedPercent: meter.usedPercent ?? (meter.status === "exceeded" ? 100 : 0),
        windowDurationMins: null,
        resetsAt: unixSeconds(meter.resetsAt),
      },
      secondary: null,
      rateLimitReachedType: meter.status === "exceeded" ? "rate_limit_reached" : null,
      planType: null,
    },
  };
}

/**
 * The connection's `_account/rate_limits_update` pushes: each limit when it differs from what was
 * last pushed for it, whatever session saw it. A relative reset (OpenAI's `6m0s`) moves with every
 * answer, so the reset is compared to the minute.
 */
export function createAccountRateLimits(send: (params: ReturnType<typeof accountRateLimits>) => void) {
  const last = new Map<string, string>();
  return (pool: QuotaPool): void => {
    for (const meter of pool.meters) {
      const params = accountRateLimits(pool, meter);
      const { primary } = params.rateLimits;
      const key = JSON.stringify([
        primary.usedPercent,
        params.rateLimits.rateLimitReachedType,
        minute(primary.resetsAt),
      ]);
      if (last.get(params.rateLimits.limitId) === key) continue;
      last.set(params.rateLimits.limitId, key);
      send(params);
    }
  };
}

const minute = (seconds: number | null) => (seconds === null ? null : Math.round(seconds / 60));

const CLAUDE_STATUS = { ok: "allowed", warning: "allowed_warning", exceeded: "rejected" } as const;

/**
 * Per session: claude-agent-acp's `_claude/rateLimit` usage updates, one per meter whose status or
 * share changed since it was last sent (the reset alone moves with every answer of OpenAI's).
 */
export function createClaudeRateLimits() {
  const last = new Map<string, string>();
  let context: { used: number; size: number } | undefined;
  /** Limits heard before the context use was known (a turn's headers come before its usage). */
  const early = new Map<string, QuotaPool>();
  const updates = (pool: QuotaPool): acp.SessionUpdate[] => {
    if (!context) return (void early.set(pool.id, pool), []);
    const out: acp.SessionUpdate[] = [];
    for (const meter of pool.meters) {
      const status = CLAUDE_STATUS[meter.status ?? "ok"];
      const utilization = meter.usedPercent === undefined ? undefined : meter.usedPercent / 100;
      const id = `${pool.id}:${meter.id}`;
      const key = JSON.stringify([status, utilization]);
      if (last.get(id) === key) continue;
      last.set(id, key);
      const info = {
        status,
        resetsAt: unixSeconds(meter.resetsAt),
        rateLimitType: meter.id,
        ...(utilization === undefined ? {} : { utilization }),
      };
      out.push({ sessionUpdate: "usage_update", ...context, _meta: { [CLAUDE_RATE_LIMIT_KEY]: info } });
    }
    return out;
  };
  return {
    /** The session's context use, which every usage_update carries; then the limits heard before it. */
    usage(used: number, size: number): acp.SessionUpdate[] {
      context = { used, size };
      const pools = [...early.values()];
      early.clear();
      return pools.flatMap(updates);
    },
    updates,
  };
}

type TokenCount = {
  totalTokens: number;
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningOutputTokens: number;
};

/** JetBrains' `PromptResponse._meta.quota` of the turn's usage (codex-acp's QuotaMeta). */
export function promptQuota(usage: acp.Usage | undefined, model: string) {
  const count: TokenCount | null = usage
    ? {
        totalTokens: usage.totalTokens,
        inputTokens: usage.inputTokens,
        cachedInputTokens: usage.cachedReadTokens ?? 0,
        outputTokens: usage.outputTokens,
        reasoningOutputTokens: usage.thoughtTokens ?? 0,
      }
    : null;
  return { token_count: count, model_usage: count ? [{ model, token_count: count }] : [] };
}
