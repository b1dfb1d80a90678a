import { errorMessage, isAbortError } from "../../util/errors.js";
import { ModelApiError } from "../errors.js";
import { isRetryableStatus, parseRetryAfter } from "./retry.js";
import type { ProxyEnv } from "../../web/proxy.js";
import { postWithNode, type PostResponse } from "./node-post.js";
import { parseSseBatches, type ByteReader, type SseEvent } from "./sse.js";
import { describeLimitHit, resetOf, type QuotaPool, type ResponseHeaders } from "../limits.js";

/** How a provider reports its limits: in response headers, and (Gemini) in a 429's body. */
export type LimitReader = {
  fromHeaders?: (headers: ResponseHeaders, now: Date) => QuotaPool | undefined;
  fromErrorBody?: (body: string, now: Date) => { pool?: QuotaPool; retryAfterMs?: number } | undefined;
};

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type PostStreamRequest = {
  /** Default: node:http(s), which costs less CPU per streamed answer than global fetch (see node-post.ts). */
  fetch?: FetchLike | undefined;
  /** Where node:http reads HTTPS_PROXY, HTTP_PROXY and NO_PROXY. Default: process.env. */
  proxyEnv?: ProxyEnv | undefined;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Names the provider in error messages, e.g. "Anthropic API". */
  label: string;
  /** Appended to 401/403 errors: which credential to check, e.g. "check ANTHROPIC_API_KEY". */
  authHint?: string;
  limits?: LimitReader;
  /** The limits a successful answer's headers reported. */
  onLimits?: (pool: QuotaPool) => void;
};

const MAX_ERROR_BODY_CHARS = 2000;

/**
 * POSTs JSON and returns a reader of the body of a 2xx answer; anything else throws ModelApiError.
 * The reader is taken here, in code that runs once per request and is never inlined (an async
 * function), because in Node 20 every ReadableStream has a hidden class of its own (see parseSseBatches).
 */
export async function postForStream(request: PostStreamRequest): Promise<ByteReader> {
  const headers = { "content-type": "application/json", accept: "text/event-stream", ...request.headers };
  const body = JSON.stringify(request.body);
  let response: PostResponse;
  try {
    response = request.fetch
      ? fromFetch(
          await request.fetch(request.url, { method: "POST", headers, body, signal: request.signal }),
          request.label,
        )
      : await postWithNode(request.url, headers, body, request.signal, request.proxyEnv ?? process.env);
  } catch (error) {
    throw asNetworkError(error, request.label);
  }
  if (response.status < 200 || response.status > 299) {
    const text = await response.text().catch(() => "");
    const error = httpError(response.status, response.headers, text, request.label, request.limits);
    if ((response.status === 401 || response.status === 403) && request.authHint)
      error.message += ` (${request.authHint})`;
    throw error;
  }
  if (request.onLimits && request.limits?.fromHeaders) {
    const pool = request.limits.fromHeaders(response.headers, new Date());
    if (pool) request.onLimits(pool);
  }
  return response.reader();
}

function fromFetch(response: Response, label: string): PostResponse {
  return {
    status: response.status,
    headers: response.headers,
    text: () => response.text(),
    reader: () => {
      if (!response.body) throw new ModelApiError(`${label} returned an empty response`, { retryable: true });
      return response.body.getReader();
    },
  };
}

/** The transport settings every SSE client passes on: the injected fetch and the idle timeout, when set. */
export function transportOf(options: {
  fetch?: FetchLike | undefined;
  idleTimeoutMs?: number | undefined;
}): Pick<SseRequest, "fetch" | "idleTimeoutMs"> {
  return options.idleTimeoutMs === undefined
    ? { fetch: options.fetch }
    : { fetch: options.fetch, idleTimeoutMs: options.idleTimeoutMs };
}

export type SseRequest = PostStreamRequest & {
  /** A silent connection (no bytes, including while waiting for headers) fails after this long. Default 600 000 ms. */
  idleTimeoutMs?: number;
};

/**
 * POSTs and yields the response's SSE events. A connection that breaks or stays silent past the idle
 * timeout becomes a retryable ModelApiError; the caller's own abort passes through as an AbortError.
 */
/** Yields the events of each network read together (see parseSseBatches). */
export async function* streamSse(request: SseRequest): AsyncGenerator<SseEvent[]> {
  const timeoutMs = request.idleTimeoutMs ?? 600_000;
  const idle = new AbortController();
  // One timer for the whole stream: re-arming a timer per event cost more than parsing the event.
  // `waitingSince` is set while we wait for the network and cleared while the consumer works.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let waitingSince: number | undefined;
  const check = () => {
    if (waitingSince === undefined) return void (timer = setTimeout(check, timeoutMs));
    const silent = Date.now() - waitingSince;
    if (silent >= timeoutMs) idle.abort();
    else timer = setTimeout(check, timeoutMs - silent);
  };
  const arm = () => {
    waitingSince = Date.now();
    timer ??= setTimeout(check, timeoutMs);
  };
  const translate = (error: unknown) =>
    idle.signal.aborted && !request.signal.aborted
      ? new ModelApiError(`${request.label} sent nothing for ${formatDuration(timeoutMs)}`, { retryable: true })
      : asNetworkError(error, request.label);
  let events: AsyncGenerator<SseEvent[]> | undefined;
  try {
    arm();
    let reader: ByteReader;
    try {
      reader = await postForStream({ ...request, signal: AbortSignal.any([request.signal, idle.signal]) });
    } catch (error) {
      throw translate(error);
    }
    events = parseSseBatches(reader);
    for (;;) {
      arm();
      let next: IteratorResult<SseEvent[]>;
      try {
        next = await events.next();
      } catch (error) {
        throw translate(error);
      }
      // The consumer's own pace must not count as silence.
      waitingSince = undefined;
      if (next.done) return;
      yield next.value;
    }
  } finally {
    clearTimeout(timer);
    await events?.return(undefined);
  }
}

export function httpError(
  status: number,
  headers: ResponseHeaders,
  bodyText: string,
  label: string,
  limits?: LimitReader,
): ModelApiError {
  const { type, message } = describeErrorBody(bodyText);
  const shouldRetry = headers.get("x-should-retry");
  // An account out of credit stays so for longer than any retry waits.
  const quota = type === "insufficient_quota";
  const retryable =
    shouldRetry === "true"
      ? true
      : shouldRetry === "false" || quota
        ? false
        : isRetryableStatus(status) || type === "overloaded_error";
  const now = new Date();
  const fromBody = status === 429 ? limits?.fromErrorBody?.(bodyText, now) : undefined;
  const retryAfterMs = parseRetryAfter(headers) ?? fromBody?.retryAfterMs;
  const text = `${label} error ${status}${type ? ` (${type})` : ""}: ${message}`;
  let limit;
  if (status === 429 || quota) {
    const pool = fromBody?.pool ?? limits?.fromHeaders?.(headers, now);
    // The later of the server's own retry-after and the exhausted meters' resets.
    const afterRetry = retryAfterMs === undefined ? undefined : new Date(now.getTime() + retryAfterMs).toISOString();
    const resetsAt = [resetOf(pool), afterRetry]
      .filter((t): t is string => t !== undefined)
      .sort()
      .at(-1);
    const detail = quota ? `The account's quota is used up (${message}); check its plan and billing.` : message;
    limit = describeLimitHit(quota ? `${label} quota` : `${label} rate`, detail, resetsAt, now, pool);
  }
  return new ModelApiError(text, {
    status,
    retryable,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(limit ? { limit } : {}),
  });
}

/** Both Anthropic and OpenAI-style servers answer `{error: {type|code, message}}`; others send text. */
export function describeErrorBody(bodyText: string): { type?: string; message: string } {
  try {
    const parsed = JSON.parse(bodyText) as { error?: unknown; message?: unknown };
    const inner =
      typeof parsed.error === "object" && parsed.error !== null ? (parsed.error as Record<string, unknown>) : {};
    const message = inner.message ?? parsed.message ?? (typeof parsed.error === "string" ? parsed.error : undefined);
    const type = inner.type ?? inner.code;
    if (typeof message === "string") {
      return typeof type === "string" ? { type, message } : { message };
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  const trimmed = bodyText.trim().slice(0, MAX_ERROR_BODY_CHARS);
  return { message: trimmed || "(empty response body)" };
}

function asNetworkError(error: unknown, label: string): unknown {
  if (isAbortError(error) || error instanceof ModelApiError) return error;
  const certificate = certificateProblem(error);
  if (certificate)
    return new ModelApiError(
      `Cannot verify the TLS certificate of ${label} (${certificate}). If a proxy or a private CA signs it, point NODE_EXTRA_CA_CERTS at that CA's PEM file.`,
      { retryable: false },
    );
  const cause = error instanceof Error && error.cause !== undefined ? ` (${errorMessage(error.cause)})` : "";
  return new ModelApiError(`Network error talking to ${label}: ${errorMessage(error)}${cause}`, { retryable: true });
}

// OpenSSL's verification failures (Node's error codes): asking again gets the same certificate.
const CERTIFICATE_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_UNTRUSTED",
  "CERT_REVOKED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
]);

/** "CODE: message" for a certificate the client refused (itself, or as fetch's cause), else undefined. */
function certificateProblem(error: unknown): string | undefined {
  for (const candidate of [error, error instanceof Error ? error.cause : undefined]) {
    const code = (candidate as { code?: unknown } | undefined)?.code;
    if (typeof code === "string" && CERTIFICATE_CODES.has(code)) return `${code}: ${errorMessage(candidate)}`;
  }
  return undefined;
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** Joins a base URL and a path without doubling or dropping slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
