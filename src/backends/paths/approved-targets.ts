import { resolve } from "node:path";
import type { ApprovedTargets, BackendProtocol } from "../protocol.js";

export type { ApprovedTargets };

// What the gate approved for one tool call: each path the call asked for and the real path the
// decision was made on. The call's backend is bound to it (backendForCall): the layers that open
// real paths (the local file system, the editor's fs/*) open exactly that file, so a link swapped
// after the decision (by a command running in parallel, or planted in between) is refused instead
// of followed. The wrappers above them (rules, routes, shells) bind their inner backends in turn.

/** The real path `approved` names for `path`, or undefined (no gated call, or a path it did not name). */
export function approvedRealPath(approved: ApprovedTargets | undefined, path: string): string | undefined {
  return approved?.get(resolve(path));
}

/** `backend` bound to a gated call's approved real paths (itself when no layer of it opens real paths). */
export function backendForCall<T extends BackendProtocol>(backend: T, approved: ApprovedTargets): T {
  // An empty map names no path: every layer would open what it opens anyway.
  if (approved.size === 0) return backend;
  return (backend.forCall?.(approved) as T | undefined) ?? backend;
}
