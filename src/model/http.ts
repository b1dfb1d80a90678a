import { errorMessage, isAbortError } from "../util/errors.js";
import { ModelApiError } from "./errors.js";
import { isRetryableStatus, parseRetryAfter } from "./retry.js";
import { parseSseBatches, type SseEvent } from "./sse.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type PostStreamRequest = {
  fetch: FetchLike;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Names the provider in error messages, e.g. "Anthropic API". */
  label: string;
  /** Appended to 401/403 errors: which credential to check, e.g. "check ANTHROPIC_API_KEY". */
  authHint?: string;
};

const MAX_ERROR_BODY_CHARS = 2000;

/** POSTs JSON and returns the response body of a 2xx answer; anything else throws ModelApiError. */
export async function postForStream(request: PostStreamRequest): Promise<ReadableStream<Uint8Array>> {
  let response: Response;
  try {
    response = await request.fetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream", ...request.headers },
      body: JSON.stringify(request.body),
      signal: request.signal,
    });
  } catch (error) {
    throw asNetworkError(error, request.label);
  }
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    const error = httpError(response.status, response.headers, text, request.label);
    if ((response.status === 401 || response.status === 403) && request.authHint)
      error.message += ` (${request.authHint})`;
    throw error;
  }
  if (!response.body) throw new ModelApiError(`${request.label} returned an empty response`, { retryable: true });
  return response.body;
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
    let body: ReadableStream<Uint8Array>;
    try {
      body = await postForStream({ ...request, signal: AbortSignal.any([request.signal, idle.signal]) });
    } catch (error) {
      throw translate(error);
    }
    events = parseSseBatches(body);
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

export function httpError(status: number, headers: Headers, bodyText: string, label: string): ModelApiError {
  const { type, message } = describeErrorBody(bodyText);
  const shouldRetry = headers.get("x-should-retry");
  const retryable =
    shouldRetry === "true"
      ? true
      : shouldRetry === "false"
        ? false
        : isRetryableStatus(status) || type === "overloaded_error";
  const retryAfterMs = parseRetryAfter(headers);
  return new ModelApiError(`${label} error ${status}${type ? ` (${type})` : ""}: ${message}`, {
    status,
    retryable,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
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
  const cause = error instanceof Error && error.cause !== undefined ? ` (${errorMessage(error.cause)})` : "";
  return new ModelApiError(`Network error talking to ${label}: ${errorMessage(error)}${cause}`, { retryable: true });
}

function formatDuration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`;
}

/** Joins a base URL and a path without doubling or dropping slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
