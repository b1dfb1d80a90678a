import * as acp from "@agentclientprotocol/sdk/unstable";
import { ForkPointError, RewindError } from "../session/errors.js";
import { InvalidCursorError, InvalidSessionIdError, SessionNotFoundError } from "../transcript/index.js";

/** What the request was about, for the error's `data`. */
export type ErrorContext = { sessionId?: string; messageId?: string; cursor?: string };

/**
 * The one map from domain errors to JSON-RPC errors: an unknown or malformed session id is
 * "resource not found" (-32002), a bad cursor or message id is "invalid params" (-32602). Anything
 * else passes unchanged (the SDK answers it as an internal error).
 */
export function toRequestError(error: unknown, context: ErrorContext = {}): unknown {
  if (error instanceof acp.RequestError) return error;
  if (error instanceof SessionNotFoundError || error instanceof InvalidSessionIdError) {
    return acp.RequestError.sessionNotFound(context.sessionId ?? error.sessionId);
  }
  if (error instanceof InvalidCursorError)
    return acp.RequestError.invalidParams({ cursor: context.cursor }, "invalid cursor");
  if (error instanceof ForkPointError || error instanceof RewindError) {
    return acp.RequestError.invalidParams({ messageId: context.messageId }, error.message);
  }
  return error;
}

/** Runs a handler's work, answering domain errors with their wire errors. */
export async function mapErrors<T>(context: ErrorContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw toRequestError(error, context);
  }
}
