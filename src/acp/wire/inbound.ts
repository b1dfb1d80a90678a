import { readLineId, type IdRead } from "./id-reader.js";
import { scanJsonLine, type LineShape } from "./json-scan.js";
import type { SplitLine } from "./line-splitter.js";

// Decides, for one line from the editor, what the ACP SDK may see. Everything the SDK would choke
// on (too long, too deep, not UTF-8, not JSON, not a JSON-RPC envelope) is answered here with a
// short error that echoes nothing of the input but the request's id; only well-formed envelopes
// within the limits pass on. Ids travel as the raw JSON text the editor wrote (id-reader.ts), so
// every answer, here or from the SDK, carries exactly that id; `null` only when it cannot be read.

export type TransportLimits = {
  /** Longest accepted line, in bytes. */
  maxMessageBytes: number;
  /** Deepest accepted nesting of objects and arrays. */
  maxDepth: number;
  /** Most JSON values in one line (json-scan.ts counts them): what JSON.parse's time grows with. */
  maxValues: number;
};

export const DEFAULT_TRANSPORT_LIMITS: TransportLimits = {
  maxMessageBytes: 32 * 1024 * 1024,
  maxDepth: 256,
  maxValues: 200_000,
};

/** The id of a request as the editor wrote it: JSON text (`"a"`, `12`, `null`). */
export type RawId = string;

export type Inbound =
  /** A request for the SDK; its answer must carry `id`. */
  | { kind: "request"; message: Record<string, unknown>; id: RawId }
  /** A notification or a response to one of our requests (for an unreadable one, a synthetic error response). */
  | { kind: "message"; message: Record<string, unknown> }
  /** Answer the editor directly, with `id` ("null" when it could not be read). */
  | { kind: "reply"; id: RawId; error: { code: number; message: string } }
  /** Nothing to answer (a broken notification, or a response we cannot match); logged. */
  | { kind: "drop"; reason: string };

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

/** Any string or number can be echoed (as written); null too. Objects, arrays and booleans are no id. */
export const isValidId = (id: unknown): id is string | number | null =>
  id === null || typeof id === "string" || typeof id === "number";

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const utf8 = new TextDecoder("utf-8", { fatal: true });

const reply = (id: IdRead, code: number, message: string): Inbound => ({
  kind: "reply",
  id: id.kind === "id" ? id.raw : "null",
  error: { code, message },
});

/**
 * A line the SDK must not see. A request gets the error; a response to one of our requests becomes
 * an error response for that id (so whatever waits for it fails instead of hanging); a notification
 * (a line read to its end without an id) is dropped, as JSON-RPC wants.
 */
function refuse(
  shape: Pick<LineShape, "hasMethod" | "hasOutcome">,
  id: IdRead,
  code: number,
  message: string,
): Inbound {
  if (!shape.hasMethod && shape.hasOutcome) {
    const value: unknown = id.kind === "id" ? JSON.parse(id.raw) : null;
    if (typeof value !== "string" && typeof value !== "number")
      return { kind: "drop", reason: `unmatchable response: ${message}` };
    return { kind: "message", message: { jsonrpc: "2.0", id: value, error: { code, message } } };
  }
  if (id.kind === "none" && shape.hasMethod) return { kind: "drop", reason: `notification: ${message}` };
  return reply(id, code, message);
}

export function classifyLine(line: SplitLine, limits: TransportLimits): Inbound {
  if (line.kind === "oversize") {
    return refuse(
      scanJsonLine(line.head, limits.maxDepth),
      line.id,
      INVALID_REQUEST,
      `Invalid request: the message is ${mib(line.size)}, over the ${mib(limits.maxMessageBytes)} limit ` +
        "([acp] max_message_bytes in config.toml, or --max-message-bytes); attach large files as resource links instead of embedding them",
    );
  }
  const { bytes } = line;
  const idOf = () => readLineId(bytes, limits.maxMessageBytes);
  const scanned = bytes.length > limits.maxDepth ? scanJsonLine(bytes, limits.maxDepth) : undefined;
  if (scanned && scanned.depth > limits.maxDepth) {
    return refuse(
      scanned,
      idOf(),
      INVALID_REQUEST,
      `Invalid request: JSON nested deeper than ${limits.maxDepth} levels ([acp] max_json_depth)`,
    );
  }
  // Parsed, a line of ten million `{}` holds the thread for seconds (and 640 MB): no other request
  // of any session is read or answered meanwhile.
  if (scanned && scanned.values > limits.maxValues) {
    return refuse(
      scanned,
      idOf(),
      INVALID_REQUEST,
      `Invalid request: more than ${limits.maxValues} JSON values in one message ([acp] max_json_values)`,
    );
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return refuse(
      scanned ?? scanJsonLine(bytes, limits.maxDepth),
      idOf(),
      PARSE_ERROR,
      "Parse error: the line is not valid UTF-8",
    );
  }
  if (text.trim() === "") return { kind: "drop", reason: "empty line" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse's message quotes a few characters of the input at most.
    const message = `Parse error: ${String((error as Error).message).slice(0, 200)}`;
    return refuse(scanned ?? scanJsonLine(bytes, limits.maxDepth), idOf(), PARSE_ERROR, message);
  }
  return classifyValue(value, idOf);
}

function classifyValue(value: unknown, idOf: () => IdRead): Inbound {
  const unreadable: IdRead = { kind: "unreadable" };
  if (Array.isArray(value))
    return reply(unreadable, INVALID_REQUEST, "Invalid request: JSON-RPC batches are not supported");
  if (typeof value !== "object" || value === null)
    return reply(unreadable, INVALID_REQUEST, "Invalid request: a message must be a JSON object");
  const message = value as Record<string, unknown>;
  const hasId = Object.hasOwn(message, "id");
  const shape = { hasMethod: "method" in message, hasOutcome: "result" in message || "error" in message };
  if (!shape.hasMethod) {
    if (!hasId && !shape.hasOutcome)
      return reply(unreadable, INVALID_REQUEST, "Invalid request: no method, id, result or error");
    // A response: never answered. One whose id cannot be ours is dropped here, the rest go to the SDK.
    if (!hasId || !isValidId(message.id) || message.id === null || message.jsonrpc !== "2.0")
      return { kind: "drop", reason: "malformed response" };
    return { kind: "message", message };
  }
  const id: IdRead = !hasId ? { kind: "none" } : isValidId(message.id) ? rawIdOf(message.id, idOf()) : unreadable;
  if (hasId && id.kind !== "id")
    return reply(id, INVALID_REQUEST, "Invalid request: id must be a string, a number or null");
  if (message.jsonrpc !== "2.0") return refuse(shape, id, INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"');
  if (typeof message.method !== "string")
    return refuse(shape, id, INVALID_REQUEST, "Invalid request: method must be a string");
  if (id.kind !== "id") return { kind: "message", message };
  return { kind: "request", message, id: id.raw };
}

/** The id as written; what JSON.stringify makes of the parsed one if the reader saw it differently. */
function rawIdOf(parsed: string | number | null, read: IdRead): IdRead {
  if (read.kind === "id") return read;
  return { kind: "id", raw: Number.isFinite(parsed) || typeof parsed !== "number" ? JSON.stringify(parsed) : "null" };
}
