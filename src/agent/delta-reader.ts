import type { BufferedModelStream, ModelEvent } from "../model/types.js";

/**
 * Reads a model stream a network read at a time, with each run of consecutive text (or thinking)
 * deltas merged into one event. A fast model sends thousands of tiny deltas per read; merged, each
 * later step (history text, events, transcript, editor updates) runs once per read instead of once
 * per delta, and the text stays exactly what the model sent. Streams that cannot hand over their
 * received events (a test double) are read an event at a time.
 */
export function createDeltaReader(stream: AsyncIterable<ModelEvent>) {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<ModelEvent> & Partial<BufferedModelStream>;
  const takeBuffered = typeof iterator.takeBuffered === "function" ? iterator.takeBuffered.bind(iterator) : undefined;
  let finished = false;
  return {
    /** The next read's events, merged; undefined once the stream has ended. */
    async next(): Promise<ModelEvent[] | undefined> {
      const next = await iterator.next();
      if (next.done) {
        finished = true;
        return undefined;
      }
      const rest = takeBuffered?.() ?? [];
      return rest.length === 0 ? [next.value] : mergeDeltas([next.value, ...rest]);
    },
    /** Stops a stream left before its end (what `for await` does on an early exit). */
    async close(): Promise<void> {
      if (finished) return;
      finished = true;
      await iterator.return?.(undefined);
    },
  };
}

export function mergeDeltas(events: readonly ModelEvent[]): ModelEvent[] {
  const out: ModelEvent[] = [];
  let runType: "text_delta" | "thinking_delta" | undefined;
  let run: string[] = [];
  const close = () => {
    if (runType) out.push({ type: runType, text: run.length === 1 ? run[0]! : run.join("") });
    runType = undefined;
    run = [];
  };
  for (const event of events) {
    if (event.type === "text_delta" || event.type === "thinking_delta") {
      if (runType !== event.type) close();
      runType = event.type;
      run.push(event.text);
    } else {
      close();
      out.push(event);
    }
  }
  close();
  return out;
}
