// Errors the protocol layer maps to wire errors; kept apart so acp/ can check them without loading
// the session machinery during the handshake.

import type { RewindProblem } from "../transcript/index.js";

/** A rewind to a message the conversation does not have (or, for a user-message cut, not as a user message). */
export class RewindError extends Error {
  constructor(
    readonly reason: RewindProblem,
    message: string,
  ) {
    super(message);
  }
}

/** A fork at a message the source session does not have. */
export class ForkPointError extends Error {}
