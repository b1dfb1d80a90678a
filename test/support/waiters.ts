// Waiting on state a test collects from events (messages, updates, watcher changes): each change
// calls notify(), and every pending waitFor re-checks its predicate then, not on a timer.

export type Waiters = {
  /** Re-checks every pending predicate; call after each change to the state they read. */
  notify(): void;
  /** Resolves once `predicate` holds; rejects after `timeoutMs` with `timeoutMessage()`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
  /**
   * No more changes will come (the source is gone): pending and later waits whose predicate does
   * not hold fail at once with `message()`, instead of at their time-out.
   */
  end(message: () => string): void;
};

export function createWaiters(timeoutMessage: () => string): Waiters {
  const checks = new Set<() => void>();
  let ended: (() => string) | undefined;
  return {
    notify: () => checks.forEach((check) => check()),
    end(message) {
      ended = message;
      checks.forEach((check) => check());
    },
    waitFor(predicate, timeoutMs = 20_000) {
      if (predicate()) return Promise.resolve();
      if (ended) return Promise.reject(new Error(ended()));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          checks.delete(check);
          reject(new Error(timeoutMessage()));
        }, timeoutMs);
        const check = () => {
          const holds = predicate();
          if (!holds && !ended) return;
          clearTimeout(timer);
          checks.delete(check);
          if (holds) resolve();
          else reject(new Error(ended!()));
        };
        checks.add(check);
      });
    },
  };
}
