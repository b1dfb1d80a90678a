// Waiting on state a test collects from events (messages, updates, watcher changes): each change
// calls notify(), and every pending waitFor re-checks its predicate then, not on a timer.

export type Waiters = {
  /** Re-checks every pending predicate; call after each change to the state they read. */
  notify(): void;
  /** Resolves once `predicate` holds; rejects after `timeoutMs` with `timeoutMessage()`. */
  waitFor(predicate: () => boolean, timeoutMs?: number): Promise<void>;
};

export function createWaiters(timeoutMessage: () => string): Waiters {
  const checks = new Set<() => void>();
  return {
    notify: () => checks.forEach((check) => check()),
    waitFor(predicate, timeoutMs = 20_000) {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          checks.delete(check);
          reject(new Error(timeoutMessage()));
        }, timeoutMs);
        const check = () => {
          if (!predicate()) return;
          clearTimeout(timer);
          checks.delete(check);
          resolve();
        };
        checks.add(check);
      });
    },
  };
}
