// What each provider says about its limits, as the real APIs send it: Anthropic's
// `anthropic-ratelimit-*` headers (RFC 3339 resets), OpenAI's `x-ratelimit-*` headers (duration
// resets such as "6m0s"), Gemini's 429 body (google.rpc QuotaFailure + RetryInfo, no headers), and
// Bedrock's ThrottlingException (no limits at all).
import type { FakeApi, FakeTurn } from "./types.js";

export type LimitState = {
  /** Requests left in the window, of `requestLimit`. Default 3999 of 4000. */
  requestsLeft?: number;
  requestLimit?: number;
  /** Tokens left, of `tokenLimit`. Default 79000 of 80000. */
  tokensLeft?: number;
  tokenLimit?: number;
  /** When the window resets, from now. Default 60 s. */
  resetsInSeconds?: number;
};

/** The rate-limit headers of a successful answer (none for Gemini and Bedrock, which send none). */
export function limitHeaders(api: FakeApi, state: LimitState = {}): Record<string, string> {
  const requestLimit = state.requestLimit ?? 4000;
  const tokenLimit = state.tokenLimit ?? 80_000;
  const requestsLeft = state.requestsLeft ?? requestLimit - 1;
  const tokensLeft = state.tokensLeft ?? tokenLimit - 1000;
  const seconds = state.resetsInSeconds ?? 60;
  if (api === "anthropic") {
    const reset = new Date(Date.now() + seconds * 1000).toISOString().replace(/\.\d+Z$/, "Z");
    return {
      "anthropic-ratelimit-requests-limit": String(requestLimit),
      "anthropic-ratelimit-requests-remaining": String(requestsLeft),
      "anthropic-ratelimit-requests-reset": reset,
      "anthropic-ratelimit-input-tokens-limit": String(tokenLimit * 5),
      "anthropic-ratelimit-input-tokens-remaining": String(tokenLimit * 5 - 2000),
      "anthropic-ratelimit-input-tokens-reset": reset,
      "anthropic-ratelimit-output-tokens-limit": String(tokenLimit),
      "anthropic-ratelimit-output-tokens-remaining": String(tokensLeft),
      "anthropic-ratelimit-output-tokens-reset": reset,
      "anthropic-ratelimit-tokens-limit": String(tokenLimit * 6),
      "anthropic-ratelimit-tokens-remaining": String(tokenLimit * 6 - 3000),
      "anthropic-ratelimit-tokens-reset": reset,
      "request-id": "req_011CFakeLimits",
    };
  }
  if (api === "openai" || api === "responses") {
    const minutes = Math.floor(seconds / 60);
    return {
      "x-ratelimit-limit-requests": String(requestLimit),
      "x-ratelimit-remaining-requests": String(requestsLeft),
      "x-ratelimit-reset-requests": `${Math.max(1, Math.round((60 / requestLimit) * 1000))}ms`,
      "x-ratelimit-limit-tokens": String(tokenLimit),
      "x-ratelimit-remaining-tokens": String(tokensLeft),
      "x-ratelimit-reset-tokens": minutes > 0 ? `${minutes}m${seconds % 60}s` : `${seconds}s`,
      "x-request-id": "req_fake_limits",
      "openai-processing-ms": "321",
    };
  }
  return {};
}

/** A refusal for a limit that lifts in `resetsInSeconds`, as each provider words it. */
export function rateLimitedTurn(api: FakeApi, options: { resetsInSeconds: number; quota?: boolean }): FakeTurn {
  const seconds = options.resetsInSeconds;
  if (api === "anthropic")
    return {
      parts: [],
      httpError: {
        status: 429,
        headers: {
          ...limitHeaders(api, { tokensLeft: 0, resetsInSeconds: seconds }),
          "retry-after": String(seconds),
        },
        body: {
          type: "error",
          error: {
            type: "rate_limit_error",
            message:
              "This request would exceed the rate limit for your organization of 80,000 output tokens per minute.",
          },
        },
      },
    };
  if (api === "openai" || api === "responses")
    return {
      parts: [],
      httpError: options.quota
        ? {
            status: 429,
            body: {
              error: {
                message: "You exceeded your current quota, please check your plan and billing details.",
                type: "insufficient_quota",
                param: null,
                code: "insufficient_quota",
              },
            },
          }
        : {
            status: 429,
            headers: {
              ...limitHeaders(api, { requestsLeft: 0, resetsInSeconds: seconds }),
              "retry-after": String(seconds),
            },
            body: {
              error: {
                message: "Rate limit reached for gpt-5 in organization org-fake on requests per min (RPM): Limit 4000.",
                type: "requests",
                param: null,
                code: "rate_limit_exceeded",
              },
            },
          },
    };
  if (api === "gemini")
    return {
      parts: [],
      httpError: {
        status: 429,
        body: {
          error: {
            code: 429,
            message: "You exceeded your current quota, please check your plan and billing details.",
            status: "RESOURCE_EXHAUSTED",
            details: [
              {
                "@type": "type.googleapis.com/google.rpc.QuotaFailure",
                violations: [
                  {
                    quotaMetric: "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                    quotaId: "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                    quotaDimensions: { location: "global", model: "gemini-2.5-pro" },
                    quotaValue: "5",
                  },
                ],
              },
              {
                "@type": "type.googleapis.com/google.rpc.Help",
                links: [{ description: "Learn more", url: "https://ai.google.dev/gemini-api/docs/rate-limits" }],
              },
              { "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${seconds}s` },
            ],
          },
        },
      },
    };
  // Bedrock: the error type travels in x-amzn-errortype; no limits, no reset time.
  return {
    parts: [],
    httpError: {
      status: 429,
      headers: { "x-amzn-errortype": "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/" },
      body: { message: "Too many requests, please wait before trying again." },
    },
  };
}
