/** The fixed lines an eval outcome ends with when the script did not finish on its own. */

export function cancelledText(): string {
  return "Cancelled: execution interrupted";
}

export function promiseTimeoutText(timeoutMs: number): string {
  return `TimeoutError: Promise timed out — execution interrupted after ${timeoutMs} ms while the script was still waiting (limit: interpreter.timeout_ms)`;
}

export function resetNote(): string {
  return "The interpreter was reset: variables from earlier eval calls are gone.";
}
