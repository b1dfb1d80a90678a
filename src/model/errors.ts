import type { LimitHit } from "./limits.js";
import type { ProviderName } from "./types.js";

export type ModelConfigErrorCode = "missing_credentials" | "invalid_spec" | "missing_package";

/** A model cannot be set up from the given spec and environment. The message says what to change. */
export class ModelConfigError extends Error {
  override readonly name = "ModelConfigError";
  constructor(
    readonly code: ModelConfigErrorCode,
    message: string,
    readonly provider?: ProviderName,
  ) {
    super(message);
  }
}

export type ModelApiErrorOptions = {
  /** HTTP status, when the failure was an HTTP response (or an in-stream error mapped to one). */
  status?: number;
  retryable: boolean;
  /** Server-requested wait before retrying (retry-after / retry-after-ms). */
  retryAfterMs?: number;
  /** A rate limit or quota refused the request: what to tell the user if the retries run out. */
  limit?: LimitHit;
};

/** One failed attempt to talk to a provider. The retry loop decides whether to try again. */
export class ModelApiError extends Error {
  override readonly name = "ModelApiError";
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;
  readonly limit: LimitHit | undefined;
  constructor(message: string, options: ModelApiErrorOptions) {
    super(message);
    this.status = options.status;
    this.retryable = options.retryable;
    this.retryAfterMs = options.retryAfterMs;
    this.limit = options.limit;
  }
}

/** One SSE `data:` payload as JSON; a payload that is not JSON is the provider's fault and not worth a retry. */
export function parseStreamJson<T>(label: string, data: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new ModelApiError(`${label} sent malformed stream data: ${data.slice(0, 200)}`, { retryable: false });
  }
}
