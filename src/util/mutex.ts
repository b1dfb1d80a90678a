/** Runs async sections one at a time, in call order. */
export function createMutex() {
  let tail: Promise<unknown> = Promise.resolve();
  return function runExclusive<T>(section: () => Promise<T>): Promise<T> {
    const run = tail.then(section, section);
    tail = run.catch(() => undefined);
    return run;
  };
}
export type Mutex = ReturnType<typeof createMutex>;
