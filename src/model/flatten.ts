import type { ModelEvent } from "./types.js";

/**
 * Hands out the events of batches one by one. Events of a batch already received are returned
 * without another trip through the generator chain, so per-event cost is one resolved promise.
 */
export function flattenBatches(batches: AsyncGenerator<ModelEvent[]>): AsyncIterableIterator<ModelEvent> {
  let buffer: ModelEvent[] = [];
  let index = 0;
  const iterator: AsyncIterableIterator<ModelEvent> = {
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
