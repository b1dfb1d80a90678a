import type { TurnResult } from "../agent/events.js";
import { createTurnAbortController } from "../util/turn-signal.js";

type Cancelled = { stopReason: "cancelled" };

/**
 * Runs a session's turns one after another, each with its own abort signal. cancel() aborts the
 * running turn and every turn queued before the cancel; those never start. After close() nothing
 * new runs.
 */
export function createTurnQueue(options: { onSettled?: () => void } = {}) {
  let queue: Promise<unknown> = Promise.resolve();
  let current: { abort: AbortController; done: Promise<TurnResult> } | undefined;
  /** Bumped by cancel(): work queued before it ends `cancelled` without running. */
  let epoch = 0;
  let closed = false;

  function cancel(): void {
    epoch++;
    current?.abort.abort();
  }

  return {
    get running(): boolean {
      return current !== undefined;
    },
    get closed(): boolean {
      return closed;
    },
    /** Runs `work` when no other turn runs; cancelled work never starts. */
    run<T extends TurnResult>(work: (signal: AbortSignal) => Promise<T>): Promise<T | Cancelled> {
      if (closed) return Promise.resolve({ stopReason: "cancelled" });
      const queuedAt = epoch;
      const run = queue.then(async (): Promise<T | Cancelled> => {
        if (queuedAt !== epoch || closed) return { stopReason: "cancelled" };
        const abort = createTurnAbortController();
        let settle!: (result: TurnResult) => void;
        current = { abort, done: new Promise<TurnResult>((resolve) => (settle = resolve)) };
        try {
          const result = await work(abort.signal);
          settle(result);
          return result;
        } catch (error) {
          settle({ stopReason: "cancelled" });
          throw error;
        } finally {
          current = undefined;
          options.onSettled?.();
        }
      });
      queue = run.catch(() => undefined);
      return run;
    },
    cancel,
    /** Cancels and waits for the running turn to wind down. */
    async stop(): Promise<void> {
      cancel();
      await current?.done.catch(() => undefined);
    },
    /** Stops for good; true the first time. */
    async close(): Promise<boolean> {
      if (closed) return false;
      closed = true;
      cancel();
      await current?.done.catch(() => undefined);
      return true;
    },
  };
}
