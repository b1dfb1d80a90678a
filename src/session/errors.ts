// Errors the protocol layer maps to wire errors; kept apart so acp/ can check them without loading
// the session machinery during the handshake.

/** A rewind to a message the conversation does not have. */
export class RewindError extends Error {}

/** A fork at a message the source session does not have. */
export class ForkPointError extends Error {}
