import type { RawId } from "./inbound.js";

// Turns one outgoing message into one line, and never throws. The SDK closes the whole connection
// when a single write fails, so an unencodable message (a cycle, a stack overflow on something too
// deep) becomes a short error instead, and error answers are bounded: the SDK and handlers like to
// put the offending input into `error.data`, which must not send megabytes back (or leak them).

/** Longest `error.message` sent, in characters. */
export const MAX_ERROR_MESSAGE_CHARS = 2000;
/** Largest `error.data` sent, in characters of JSON; larger data is replaced by a note. */
export const MAX_ERROR_DATA_CHARS = 8 * 1024;

export type Encoded =
  | { ok: true; line: string }
  /** `answer` is the line to send in its place (an error response), when there is one to send. */
  | { ok: false; reason: string; answer?: string };

type Message = Record<string, unknown>;

const isRecord = (value: unknown): value is Message =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function stringify(value: unknown): string | Error {
  try {
    return JSON.stringify(value);
  } catch (error) {
    return error instanceof Error ? error : new Error(String(error));
  }
}

function boundedError(error: Message): Message {
  const message = typeof error.message === "string" ? error.message : "Error";
  const bounded: Message = {
    code: typeof error.code === "number" && Number.isInteger(error.code) ? error.code : -32603,
    message:
      message.length > MAX_ERROR_MESSAGE_CHARS ? `${message.slice(0, MAX_ERROR_MESSAGE_CHARS)}… (truncated)` : message,
  };
  if (error.data !== undefined) {
    const data = stringify(error.data);
    if (typeof data === "string" && data.length <= MAX_ERROR_DATA_CHARS) bounded.data = error.data;
    else
      bounded.data = {
        omitted:
          typeof data === "string" ? `${data.length} characters of error data` : "error data that cannot be encoded",
      };
  }
  return bounded;
}

/** `{"jsonrpc":"2.0","id":ID,...}` with the id exactly as the editor wrote it. */
export function responseLine(id: RawId, body: Message): string {
  return withId(id, JSON.stringify(body));
}

/** `rest`: the JSON of the answer's other members, as an object. */
const withId = (id: RawId, rest: string) =>
  `{"jsonrpc":"2.0","id":${id}${rest === "{}" ? "" : `,${rest.slice(1, -1)}`}}\n`;

/**
 * One message as one line. `id`: the message answers the editor's request with this raw id (the
 * message's own id is the transport's stand-in for it), in the same member order as the SDK's.
 */
export function encodeMessage(message: unknown, id?: RawId): Encoded {
  let outgoing = message;
  if (isRecord(message) && isRecord(message.error) && !("method" in message))
    outgoing = { ...message, error: boundedError(message.error) };
  let body: unknown = outgoing;
  if (id !== undefined && isRecord(outgoing)) {
    const { jsonrpc: _jsonrpc, id: _standIn, ...rest } = outgoing;
    body = rest;
  }
  const text = stringify(body);
  if (typeof text === "string") {
    if (id === undefined) return { ok: true, line: `${text}\n` };
    return { ok: true, line: withId(id, text) };
  }
  const reason = `cannot encode an outgoing message: ${text.message}`;
  // An answer we cannot encode is replaced by an error answer, so the request is still answered once.
  if (id !== undefined) {
    const error = { code: -32603, message: "Internal error: the response could not be encoded" };
    return { ok: false, reason, answer: responseLine(id, { error }) };
  }
  return { ok: false, reason };
}
