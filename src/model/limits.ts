// Rate limits and quotas as the providers report them, in the shape of the quotas-and-limits RFD
// (a pool of meters; only what the provider said, nothing synthesized). Anthropic and OpenAI-style
// servers send `*ratelimit*` headers with every answer; Gemini says what ran out in the body of its
// 429 (google.rpc QuotaFailure and RetryInfo); Bedrock only throttles (ThrottlingException).

export type Quantity = { value: string; unit?: string };
export type QuotaMeter = {
  id: string;
  label?: string;
  usedPercent?: number;
  limit?: Quantity;
  remaining?: Quantity;
  resetsAt?: string;
  status?: "ok" | "warning" | "exceeded";
};
export type QuotaPool = { id: string; label: string; state?: "available" | "exhausted"; meters: QuotaMeter[] };

/** A limit that ended a request: what to tell the user, and when it lifts if the provider said. */
export type LimitHit = { message: string; resetsAt?: string; pool?: QuotaPool };

/** What is read of a response's headers: a fetch `Headers` has it, and node-post.ts gives it without one. */
export type ResponseHeaders = { get(name: string): string | null };

/** A meter at or past this share is a warning. */
const WARNING_PERCENT = 80;

const METERS: Record<string, string> = {
  requests: "Requests",
  tokens: "Tokens",
  "input-tokens": "Input tokens",
  "output-tokens": "Output tokens",
};

function meter(
  id: string,
  limit: string | null,
  remaining: string | null,
  resetsAt: string | undefined,
): QuotaMeter | undefined {
  const max = Number(limit);
  const left = Number(remaining);
  if (limit === null || remaining === null || !Number.isFinite(max) || !Number.isFinite(left) || max <= 0)
    return undefined;
  const usedPercent = Math.round(Math.min(100, Math.max(0, (1 - left / max) * 100)) * 10) / 10;
  const unit = id === "requests" ? "requests" : "tokens";
  return {
    id,
    label: `${METERS[id] ?? id} per window`,
    usedPercent,
    limit: { value: String(max), unit },
    remaining: { value: String(left), unit },
    ...(resetsAt ? { resetsAt } : {}),
    status: left <= 0 ? "exceeded" : usedPercent >= WARNING_PERCENT ? "warning" : "ok",
  };
}

function pool(id: string, label: string, meters: QuotaMeter[]): QuotaPool | undefined {
  if (meters.length === 0) return undefined;
  return { id, label, state: meters.some((m) => m.status === "exceeded") ? "exhausted" : "available", meters };
}

/** `anthropic-ratelimit-{requests,tokens,input-tokens,output-tokens}-{limit,remaining,reset}` (reset: RFC 3339). */
export function anthropicLimits(headers: ResponseHeaders): QuotaPool | undefined {
  const meters: QuotaMeter[] = [];
  for (const id of Object.keys(METERS)) {
    const prefix = `anthropic-ratelimit-${id}`;
    const reset = headers.get(`${prefix}-reset`);
    const at = reset && !Number.isNaN(Date.parse(reset)) ? new Date(reset).toISOString() : undefined;
    const found = meter(id, headers.get(`${prefix}-limit`), headers.get(`${prefix}-remaining`), at);
    if (found) meters.push(found);
  }
  return pool("anthropic", "Anthropic API rate limits", meters);
}

/** `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset: a duration such as "6m0s" or "20ms"). */
export function openAiLimits(headers: ResponseHeaders, label: string, now: Date): QuotaPool | undefined {
  const meters: QuotaMeter[] = [];
  for (const id of ["requests", "tokens"]) {
    const reset = parseDuration(headers.get(`x-ratelimit-reset-${id}`));
    const at = reset === undefined ? undefined : new Date(now.getTime() + reset).toISOString();
    const found = meter(id, headers.get(`x-ratelimit-limit-${id}`), headers.get(`x-ratelimit-remaining-${id}`), at);
    if (found) meters.push(found);
  }
  return pool(label.toLowerCase().replace(/\W+/g, "-").replace(/-api$/, ""), `${label} rate limits`, meters);
}

/** "1h2m3.5s", "6m0s", "20ms", "1s", or bare seconds; undefined when unreadable. */
export function parseDuration(text: string | null | undefined): number | undefined {
  if (!text) return undefined;
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== trimmed) return undefined;
  const scale: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1 };
  return Math.round(parts.reduce((sum, [, value, unit]) => sum + Number(value) * scale[unit!]!, 0));
}

/** Gemini's 429 body: the quota metrics that ran out (QuotaFailure) and the wait (RetryInfo). */
export function geminiLimitFromBody(body: string, now: Date): { pool?: QuotaPool; retryAfterMs?: number } | undefined {
  let details: Array<Record<string, any>>;
  try {
    details = (JSON.parse(body) as { error?: { details?: Array<Record<string, any>> } }).error?.details ?? [];
  } catch {
    return undefined;
  }
  const retryInfo = details.find((d) => String(d["@type"]).endsWith("google.rpc.RetryInfo"));
  const retryAfterMs = parseDuration(retryInfo?.retryDelay);
  const resetsAt = retryAfterMs === undefined ? undefined : new Date(now.getTime() + retryAfterMs).toISOString();
  const failure = details.find((d) => String(d["@type"]).endsWith("google.rpc.QuotaFailure"));
  const meters: QuotaMeter[] = ((failure?.violations ?? []) as Array<Record<string, any>>).map((v) => ({
    id: String(v.quotaId ?? v.quotaMetric ?? "quota"),
    label: String(v.quotaMetric ?? v.quotaId ?? "quota"),
    ...(v.quotaValue !== undefined ? { limit: { value: String(v.quotaValue) } } : {}),
    ...(resetsAt ? { resetsAt } : {}),
    status: "exceeded" as const,
  }));
  const found = pool("gemini", "Gemini API quota", meters);
  return { ...(found ? { pool: found } : {}), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
}

/** The sentence that ends a turn stopped by a limit: which limit, and when it resets if known. */
export function describeLimitHit(
  label: string,
  detail: string,
  resetsAt: string | undefined,
  now: Date,
  pool?: QuotaPool,
): LimitHit {
  const exceeded = pool?.meters.filter((m) => m.status === "exceeded").map((m) => (m.label ?? m.id).toLowerCase());
  const which = exceeded && exceeded.length > 0 ? ` (${exceeded.join(", ")})` : "";
  const when = resetsAt ? `; it resets at ${clock(resetsAt)} (${untilText(resetsAt, now)})` : "";
  return {
    message: `${label} limit reached${which}${when}. ${detail}`.trim(),
    ...(resetsAt ? { resetsAt } : {}),
    ...(pool ? { pool } : {}),
  };
}

/** The latest reset among the exceeded meters (that is when the request can succeed again). */
export function resetOf(pool: QuotaPool | undefined): string | undefined {
  const times = (pool?.meters ?? []).filter((m) => m.status === "exceeded" && m.resetsAt).map((m) => m.resetsAt!);
  return times.sort().at(-1);
}

function clock(iso: string): string {
  return `${iso.slice(11, 19)} UTC`;
}

function untilText(iso: string, now: Date): string {
  const seconds = Math.max(0, Math.round((Date.parse(iso) - now.getTime()) / 1000));
  if (seconds < 90) return `in ${seconds} s`;
  if (seconds < 90 * 60) return `in ${Math.round(seconds / 60)} min`;
  return `in ${Math.round(seconds / 360) / 10} h`;
}
