import { errorMessage } from "../../util/errors.js";
import type { BufferedModelStream, ModelClient, ModelEvent, ModelRequest } from "../types.js";

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

/**
 * The stream of the model answering now, moving to the next candidate on an exhausted error. It
 * hands over the answering stream's already received events (`takeBuffered`) like any provider's
 * stream, so a turn reads a network read at a time with fallbacks configured too; a received event
 * that would move to the next model is held back for the loop below to see.
 */
function streamWithFallback(
  primary: ModelClient,
  candidates: FallbackCandidate[],
  request: ModelRequest,
): BufferedModelStream {
  let inner: (AsyncIterator<ModelEvent> & Partial<BufferedModelStream>) | undefined;
  let held: ModelEvent[] = [];
  let next = 0; // the next candidate to try
  const movesOn = (event: ModelEvent): event is Extract<ModelEvent, { type: "error" }> =>
    event.type === "error" && event.exhausted === true && !request.signal.aborted && next < candidates.length;

  async function* run(): AsyncGenerator<ModelEvent> {
    let current = primary;
    let failures: string[] = [];
    for (;;) {
      const stream = current.stream(request)[Symbol.asyncIterator]() as NonNullable<typeof inner>;
      inner = stream;
      let failed: Extract<ModelEvent, { type: "error" }> | undefined;
      try {
        for (;;) {
          const step = held.length > 0 ? { done: false as const, value: held.shift()! } : await stream.next();
          if (step.done) break;
          if (movesOn(step.value)) {
            failed = step.value;
            break;
          }
          yield step.value;
        }
      } finally {
        inner = undefined;
        held = [];
        await stream.return?.(undefined);
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

  const events = run();
  const stream: BufferedModelStream = {
    takeBuffered() {
      if (held.length > 0 || !inner?.takeBuffered) return [];
      const taken = inner.takeBuffered();
      const stop = taken.findIndex(movesOn);
      if (stop < 0) return taken;
      held = taken.slice(stop);
      return taken.slice(0, stop);
    },
    next: () => events.next(),
    return: (value?: ModelEvent) => events.return(value),
    [Symbol.asyncIterator]: () => stream,
  };
  return stream;
}
