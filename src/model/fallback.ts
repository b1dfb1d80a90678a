import { errorMessage } from "../util/errors.js";
import type { ModelClient, ModelEvent, ModelRequest } from "./types.js";

// [model].fallbacks: when a model is down or rate-limited past its retries, the same request goes to
// the next model in the list, and the editor is told which model answered. Only before any content
// was streamed: a half-told answer is not restarted by another model.

export type FallbackCandidate = {
  /** `provider:model`, for notices. */
  spec: string;
  /** Builds the client on first use; a failure (missing key) skips the candidate with a notice. */
  create: () => Promise<ModelClient>;
};

export function createFallbackClient(primary: ModelClient, candidates: FallbackCandidate[]): ModelClient {
  if (candidates.length === 0) return primary;
  return {
    id: primary.id,
    provider: primary.provider,
    model: primary.model,
    contextWindow: primary.contextWindow,
    supportsImages: primary.supportsImages,
    ...(primary.pricing && { pricing: primary.pricing }),
    stream: (request) => streamWithFallback(primary, candidates, request),
  };
}

async function* streamWithFallback(
  primary: ModelClient,
  candidates: FallbackCandidate[],
  request: ModelRequest,
): AsyncGenerator<ModelEvent> {
  let current = primary;
  let failures: string[] = [];
  for (let next = 0; ;) {
    let failed: Extract<ModelEvent, { type: "error" }> | undefined;
    for await (const event of current.stream(request)) {
      if (event.type === "error" && event.exhausted && !request.signal.aborted && next < candidates.length) {
        failed = event;
        break;
      }
      yield event;
    }
    if (!failed) return;
    failures = [...failures, `${current.id}: ${failed.message}`];
    // Find the next candidate that can be built.
    let chosen: ModelClient | undefined;
    while (!chosen && next < candidates.length) {
      const candidate = candidates[next++]!;
      try {
        chosen = await candidate.create();
      } catch (error) {
        yield { type: "notice", message: `Fallback model ${candidate.spec} cannot be used: ${errorMessage(error)}` };
      }
    }
    if (!chosen) {
      yield { type: "error", message: failures.join("; "), aborted: false, exhausted: true };
      return;
    }
    yield {
      type: "notice",
      message: `${current.id} is unavailable (${failed.message}); ${chosen.id} is answering instead`,
    };
    current = chosen;
  }
}
