// Polling, for state that sends no event a test could await: a file another process writes, the
// process table, a log a fire-and-forget hook appends to. Where the agent says something (an ACP
// message, a watcher change), await that instead (harness waitFor).

export type PollOptions = {
  /** Give up after this long. Default 10 s. */
  timeoutMs?: number;
  /** Time between checks. Default 20 ms. */
  intervalMs?: number;
};

/** Checks `condition` until it holds or the time is up; says whether it held. */
export async function poll(
  condition: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 20 }: PollOptions = {},
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Like poll, but fails with `what` when the time is up. */
export async function pollUntil(
  condition: () => boolean | Promise<boolean>,
  what: string,
  options: PollOptions = {},
): Promise<void> {
  if (!(await poll(condition, options)))
    throw new Error(`timed out after ${options.timeoutMs ?? 10_000} ms waiting for ${what}`);
}
