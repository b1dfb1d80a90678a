// An AbortSignal that aborts when any of its sources does, for one bounded piece of work. Node keeps
// an AbortSignal.any() signal that has an abort listener, and everything that listener reaches, in a
// process-wide set for as long as one of its sources could still abort: forever, when a source lives
// as long as a session or the process and a library (the MCP SDK's connect) never removes its
// listener. This one is a plain controller: dispose() detaches it from its sources, and it is then
// collected like any other object.

export type LinkedSignal = { signal: AbortSignal; dispose(): void };

export function linkedSignal(...sources: Array<AbortSignal | undefined>): LinkedSignal {
  const controller = new AbortController();
  const live = sources.filter((source): source is AbortSignal => source !== undefined);
  const onAbort = (event: Event) => {
    dispose();
    controller.abort((event.target as AbortSignal).reason);
  };
  const dispose = () => {
    for (const source of live) source.removeEventListener("abort", onAbort);
  };
  const aborted = live.find((source) => source.aborted);
  if (aborted) controller.abort(aborted.reason);
  else for (const source of live) source.addEventListener("abort", onAbort, { once: true });
  return { signal: controller.signal, dispose };
}
