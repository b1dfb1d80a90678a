import { AsyncLocalStorage } from "node:async_hooks";
import { resolve } from "node:path";

// What the gate approved for the tool call now running: each path the call asked for and the real
// path the decision was made on. Backends read it to open exactly that file, so a link swapped
// after the decision (by a command running in parallel, or planted in between) is refused instead
// of followed. Carried with the call's async context, so it reaches every backend layer (rules,
// routes, the editor's fallback) without changing their signatures.

export type ApprovedTargets = ReadonlyMap<string, string>;

const current = new AsyncLocalStorage<ApprovedTargets>();

/** Runs `work` (a tool's execution) with the approved requested -> real paths in scope. */
export function runWithApprovedTargets<T>(targets: ApprovedTargets, work: () => Promise<T>): Promise<T> {
  return current.run(targets, work);
}

/** The real path approved for `path` in the running call, or undefined outside a gated call. */
export function approvedRealPath(path: string): string | undefined {
  return current.getStore()?.get(resolve(path));
}
