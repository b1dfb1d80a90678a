import { withRetryBatches, type RetryContext } from "./retry.js";
import type { BufferedModelStream, ModelEvent } from "../types.js";

/**
 * Hands out the events of batches one by one. Events of a batch already received are returned
 * without another trip through the generator chain, so per-event cost is one resolved promise.
 */
export function flattenBatches(batches: AsyncGenerator<ModelEvent[]>): BufferedModelStream {
  let buffer: ModelEvent[] = [];
  let index = 0;
  const iterator: BufferedModelStream = {
    takeBuffered() {
      if (index >= buffer.length) return [];
      const rest = index === 0 ? buffer : buffer.slice(index);
      buffer = [];
      index = 0;
      return rest;
    },
    async next(): Promise<IteratorResult<ModelEvent>> {
      while (index >= buffer.length) {
        const next = await batches.next();
        if (next.done) return { done: true, value: undefined };
        buffer = next.value;
        index = 0;
      }
      return { done: false, value: buffer[index++]! };
    },
    async return(): Promise<IteratorResult<ModelEvent>> {
      await batches.return(undefined);
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}

/**
 * A provider's `stream`: builds the request body (a failure is one `error` event, nothing is sent),
 * then runs `attempt` with retries. Returned as the flattened iterator itself, without another
 * generator around it, to keep the per-event cost of a burst low.
 */
export function streamAttempts<Body>(
  label: string,
  buildBody: () => Body,
  attempt: (body: Body) => AsyncIterable<ModelEvent[]>,
  context: RetryContext,
): BufferedModelStream {
  let body: Body;
  try {
    body = buildBody();
  } catch (error) {
    return flattenBatches(
      single([{ type: "error", message: `Could not build the ${label} request: ${String(error)}`, aborted: false }]),
    );
  }
  return flattenBatches(withRetryBatches(() => attempt(body), context));
}

async function* single(batch: ModelEvent[]): AsyncGenerator<ModelEvent[]> {
  yield batch;
}
