import { errorMessage, isAbortError } from "../util/errors.js";
import { ModelApiError } from "./errors.js";
import { isRetryableStatus, parseRetryAfter } from "./retry.js";
import { parseSse, type SseEvent } from "./sse.js";

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type PostStreamRequest = {
  fetch: FetchLike;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  signal: AbortSignal;
  /** Names the provider in error messages, e.g. "Anthropic API". */
  label: string;
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
    throw httpError(response.status, response.headers, text, request.label);
  }
  if (!response.body) throw new ModelApiError(`${request.label} returned an empty response`, { retryable: true });
  return response.body;
}

/** SSE events of a response body; a connection that breaks mid-body becomes a retryable ModelApiError. */
export async function* readSse(body: ReadableStream<Uint8Array>, label: string): AsyncGenerator<SseEvent> {
  const events = parseSse(body);
  for (;;) {
    let next: IteratorResult<SseEvent>;
    try {
      next = await events.next();
    } catch (error) {
      throw asNetworkError(error, label);
    }
    if (next.done) return;
    yield next.value;
  }
}

export function httpError(status: number, headers: Headers, bodyText: string, label: string): ModelApiError {
  const { type, message } = describeErrorBody(bodyText);
  const shouldRetry = headers.get("x-should-retry");
  const retryable =
    shouldRetry === "true" ? true : shouldRetry === "false" ? false : isRetryableStatus(status) || type === "overloaded_error";
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
    const inner = typeof parsed.error === "object" && parsed.error !== null ? (parsed.error as Record<string, unknown>) : {};
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

/** Joins a base URL and a path without doubling or dropping slashes. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
}
