import * as acp from "@agentclientprotocol/sdk/unstable";
import { ForkPointError, RewindError } from "../session/errors.js";
import type { NewSessionProblem } from "../session/new-session-check.js";
import { InvalidCursorError, InvalidSessionIdError, SessionNotFoundError } from "../transcript/index.js";

// The one place that makes JSON-RPC errors (test/unit/architecture/wire-errors.test.ts fails on a
// RequestError built anywhere else): the handlers throw these by what went wrong, domain modules throw
// their own errors and toRequestError maps them. The SDK's v1 and v2 entries share one RequestError
// class, so the v2 agent's errors come from here too. Codes and messages are the SDK's own.

/** The wire errors of the agent, by what went wrong. */
export const wireError = {
  /** -32002: no such session on this connection (`data.sessionId`). */
  sessionNotFound: (sessionId: string) => acp.RequestError.sessionNotFound(sessionId),
  /** -32602: a parameter the method cannot take; `data` names it. */
  invalidParams: (data: unknown, message: string) => acp.RequestError.invalidParams(data, message),
  /** -32600: a request this state of the connection or session cannot serve. */
  invalidRequest: (data: unknown, message: string) => acp.RequestError.invalidRequest(data, message),
  /** -32002 with `data` of our own (the rewind draft's `reason`), where sessionNotFound's data does not fit. */
  resourceNotFound: (data: unknown) => new acp.RequestError(-32002, "Resource not found", data),
  /** -32601: a method this agent does not serve to this client. */
  methodNotFound: (method: string) => acp.RequestError.methodNotFound(method),
  /** -32000: no usable credentials. */
  authRequired: (message: string) => acp.RequestError.authRequired(undefined, message),
  /** -32603: the work failed for a reason of its own. */
  internalError: (message: string) => acp.RequestError.internalError(undefined, message),
  /** -32800: the request was given up. */
  requestCancelled: () => acp.RequestError.requestCancelled(),
  /** -32603 to a child agent (src/peers/): what it asked of its editor was refused (by the gate, or not possible). */
  peerRefused: (message: string) => acp.RequestError.internalError({ refused: true }, message),
  /** -32002 to a child agent: no such file (agents read it as ENOENT: a file to create). */
  peerNotFound: (path: string) => acp.RequestError.resourceNotFound(path),
  /** An error another agent answered with, passed on as it came (code, message, data). */
  relayed: (code: number, message: string, data: unknown) => new acp.RequestError(code, message, data),
};

/** Whether an error is the wire's "no such session" (-32002). */
export function isSessionNotFound(error: unknown): boolean {
  return error instanceof acp.RequestError && error.code === -32002;
}

/** The error for a failed precondition of session/new (or a relative path of load, resume, fork). */
export function newSessionProblemError(problem: NewSessionProblem): acp.RequestError {
  return problem.kind === "auth_required"
    ? wireError.authRequired(problem.message)
    : wireError.invalidParams(problem.data, problem.message);
}

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
    return wireError.sessionNotFound(context.sessionId ?? error.sessionId);
  }
  if (error instanceof InvalidCursorError) return wireError.invalidParams({ cursor: context.cursor }, "invalid cursor");
  if (error instanceof ForkPointError || error instanceof RewindError) {
    return wireError.invalidParams({ messageId: context.messageId }, error.message);
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
