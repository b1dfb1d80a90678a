import { errorMessage, isAbortError } from "../../util/errors.js";
import { silentLogger, type Logger } from "../../util/logger.js";
import { ModelApiError } from "../errors.js";
import type { ModelEvent } from "../types.js";
import type { ResponseHeaders } from "../limits.js";

export type RetryOptions = {
  /** Retries after the first attempt. Default 4. */
  maxRetries?: number;
  /** Delay before the first retry, doubled each time. Default 500 ms. */
  baseDelayMs?: number;
  /** Upper bound of the computed backoff. Default 20 000 ms. */
  maxDelayMs?: number;
  /** Longest server-requested wait (retry-after) we accept; longer hints end the request. Default 60 000 ms. */
  maxRetryAfterMs?: number;
  /** Resolves after `ms`, or early when `signal` aborts. Default: setTimeout. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Uniform [0, 1) source for jitter. Default Math.random. */
  random?: () => number;
};

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `retry-after-ms` (milliseconds) or `retry-after` (seconds or HTTP date), if present and sane. */
export function parseRetryAfter(headers: ResponseHeaders, now = Date.now()): number | undefined {
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0) return value;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** Exponential backoff with "equal jitter": half fixed, half random. `retry` counts from 1. */
export function backoffDelayMs(retry: number, options: RetryOptions = {}): number {
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 20_000;
  const random = options.random ?? Math.random;
  const exp = Math.min(cap, base * 2 ** (retry - 1));
  return Math.round(exp / 2 + (exp / 2) * random());
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}

export type RetryContext = {
  signal: AbortSignal;
  retry?: RetryOptions;
  logger?: Logger;
};

/**
 * Runs `attempt` until it finishes, retrying retryable failures, and turns every failure into one
 * terminal `error` event. An attempt that already emitted content is never retried, so streamed
 * text is never duplicated. `attempt` signals failure by throwing.
 */
export async function* withRetry(
  attempt: () => AsyncIterable<ModelEvent>,
  context: RetryContext,
): AsyncGenerator<ModelEvent> {
  for await (const batch of withRetryBatches(() => singles(attempt()), context)) yield* batch;
}

async function* singles(events: AsyncIterable<ModelEvent>): AsyncGenerator<ModelEvent[]> {
  for await (const event of events) yield [event];
}

/** withRetry over batches of events (one per network read), the form providers stream in. */
export function withRetryBatches(
  attempt: () => AsyncIterable<ModelEvent[]>,
  context: RetryContext,
): AsyncGenerator<ModelEvent[]> {
  // Checked here, before the loop, and not in it: every AbortSignal has its own hidden class in
  // Node 20, so reading one in the loop (optimised code, since it runs once per network read) throws
  // that code away at the start of every request. The loop checks again only after a retry's wait.
  return context.signal.aborted ? aborted() : retryLoop(attempt, context);
}

async function* aborted(): AsyncGenerator<ModelEvent[]> {
  yield [{ type: "error", message: "Request aborted", aborted: true }];
}

async function* retryLoop(
  attempt: () => AsyncIterable<ModelEvent[]>,
  context: RetryContext,
): AsyncGenerator<ModelEvent[]> {
  const { signal } = context;
  const options = context.retry ?? {};
  const maxRetries = options.maxRetries ?? 4;
  const maxRetryAfter = options.maxRetryAfterMs ?? 60_000;
  const sleep = options.sleep ?? abortableSleep;
  const logger = context.logger ?? silentLogger;
  for (let retries = 0; ; retries++) {
    let emittedContent = false;
    try {
      for await (const batch of attempt()) {
        if (
          !emittedContent &&
          batch.some((e) => e.type === "text_delta" || e.type === "thinking_delta" || e.type === "tool_call_start")
        ) {
          emittedContent = true;
        }
        yield batch;
      }
      return;
    } catch (error) {
      if (signal.aborted || isAbortError(error)) {
        yield [{ type: "error", message: "Request aborted", aborted: true }];
        return;
      }
      const failure = toApiError(error);
      const hint = failure.retryAfterMs;
      const canRetry =
        failure.retryable && !emittedContent && retries < maxRetries && (hint === undefined || hint <= maxRetryAfter);
      if (!canRetry) {
        logger.debug("model request failed", { message: failure.message, status: failure.status, retries });
        yield [failureEvent(failure, emittedContent && failure.retryable)];
        return;
      }
      const delayMs = hint ?? backoffDelayMs(retries + 1, options);
      logger.info(`model request failed, retrying in ${delayMs} ms`, failure.message);
      yield [{ type: "retry", attempt: retries + 1, delayMs, reason: failure.message }];
      await sleep(delayMs, signal);
      if (signal.aborted) {
        yield [{ type: "error", message: "Request aborted", aborted: true }];
        return;
      }
    }
  }
}

function failureEvent(failure: ModelApiError, midStream: boolean): ModelEvent {
  const message = midStream ? `${failure.message} (the response was interrupted)` : failure.message;
  // `exhausted`: the provider is down or rate-limited beyond our retries, so another model may answer.
  const exhausted = failure.retryable && !midStream;
  const limit = failure.limit && !midStream ? { limit: failure.limit } : {};
  return failure.status === undefined
    ? { type: "error", message, aborted: false, ...(exhausted && { exhausted }), ...limit }
    : { type: "error", message, aborted: false, status: failure.status, ...(exhausted && { exhausted }), ...limit };
}

// Transport failures arrive as ModelApiError from http.ts; anything else is our own bug, and
// retrying a bug only delays the report.
function toApiError(error: unknown): ModelApiError {
  if (error instanceof ModelApiError) return error;
  return new ModelApiError(`Model client failed: ${errorMessage(error)}`, { retryable: false });
}
