import { MAX_ID_CHARS, scanJsonLine, type JsonRpcId } from "./json-scan.js";
import type { SplitLine } from "./line-splitter.js";

// Decides, for one line from the editor, what the ACP SDK may see. Everything the SDK would choke
// on (too long, too deep, not UTF-8, not JSON, not a JSON-RPC envelope) is answered here with a
// short error that never echoes the input; only well-formed envelopes within the limits pass on.

export type TransportLimits = {
  /** Longest accepted line, in bytes. */
  maxMessageBytes: number;
  /** Deepest accepted nesting of objects and arrays. */
  maxDepth: number;
};

export const DEFAULT_TRANSPORT_LIMITS: TransportLimits = { maxMessageBytes: 32 * 1024 * 1024, maxDepth: 256 };

export type ErrorResponse = { jsonrpc: "2.0"; id: JsonRpcId; error: { code: number; message: string } };

export type Inbound =
  /** Hand to the SDK. For an unreadable response to one of our requests this is a synthetic error response. */
  | { kind: "message"; message: Record<string, unknown> }
  /** Answer the editor directly. */
  | { kind: "reply"; response: ErrorResponse }
  /** Nothing to answer (a broken notification, or a response we cannot match); logged. */
  | { kind: "drop"; reason: string };

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const errorResponse = (id: JsonRpcId, code: number, message: string): ErrorResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message },
});

export const isValidId = (id: unknown): id is JsonRpcId =>
  id === null ||
  (typeof id === "string" && id.length <= MAX_ID_CHARS) ||
  (typeof id === "number" && Number.isFinite(id));

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A line the SDK must not see. A request gets the error; a response to one of our requests becomes
 * an error response for that id (so whatever waits for it fails instead of hanging); a notification
 * is dropped, as JSON-RPC wants.
 */
function refuse(
  shape: { id: JsonRpcId | undefined; hasMethod: boolean; hasOutcome: boolean },
  code: number,
  message: string,
  certain: boolean,
): Inbound {
  if (!shape.hasMethod && shape.hasOutcome) {
    if (shape.id === undefined || shape.id === null)
      return { kind: "drop", reason: `unmatchable response: ${message}` };
    return { kind: "message", message: errorResponse(shape.id, code, message) };
  }
  // With the whole line scanned, no id means a notification; from a truncated head we cannot tell.
  if (shape.id === undefined && shape.hasMethod && certain) return { kind: "drop", reason: `notification: ${message}` };
  return { kind: "reply", response: errorResponse(shape.id ?? null, code, message) };
}

export function classifyLine(line: SplitLine, limits: TransportLimits): Inbound {
  if (line.kind === "oversize") {
    const shape = scanJsonLine(line.head, limits.maxDepth);
    return refuse(
      shape,
      INVALID_REQUEST,
      `Invalid request: the message is ${mib(line.size)}, over the ${mib(limits.maxMessageBytes)} limit ` +
        "([acp] max_message_bytes in config.toml, or --max-message-bytes); attach large files as resource links instead of embedding them",
      false,
    );
  }
  const { bytes } = line;
  const scanned = bytes.length > limits.maxDepth ? scanJsonLine(bytes, limits.maxDepth) : undefined;
  if (scanned && scanned.depth > limits.maxDepth) {
    return refuse(
      scanned,
      INVALID_REQUEST,
      `Invalid request: JSON nested deeper than ${limits.maxDepth} levels ([acp] max_json_depth)`,
      true,
    );
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return refuse(
      scanned ?? scanJsonLine(bytes, limits.maxDepth),
      PARSE_ERROR,
      "Parse error: the line is not valid UTF-8",
      true,
    );
  }
  if (text.trim() === "") return { kind: "drop", reason: "empty line" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse's message quotes a few characters of the input at most.
    return {
      kind: "reply",
      response: errorResponse(null, PARSE_ERROR, `Parse error: ${String((error as Error).message).slice(0, 200)}`),
    };
  }
  return classifyValue(value);
}

function classifyValue(value: unknown): Inbound {
  if (Array.isArray(value))
    return {
      kind: "reply",
      response: errorResponse(null, INVALID_REQUEST, "Invalid request: JSON-RPC batches are not supported"),
    };
  if (typeof value !== "object" || value === null) {
    return {
      kind: "reply",
      response: errorResponse(null, INVALID_REQUEST, "Invalid request: a message must be a JSON object"),
    };
  }
  const message = value as Record<string, unknown>;
  const hasId = Object.hasOwn(message, "id");
  const id = hasId && isValidId(message.id) ? message.id : null;
  const shape = {
    id: hasId ? id : undefined,
    hasMethod: "method" in message,
    hasOutcome: "result" in message || "error" in message,
  };
  if (!shape.hasMethod) {
    if (!hasId && !shape.hasOutcome)
      return {
        kind: "reply",
        response: errorResponse(null, INVALID_REQUEST, "Invalid request: no method, id, result or error"),
      };
    // A response: never answered. One whose id cannot be ours is dropped here, the rest go to the SDK.
    if (!hasId || !isValidId(message.id) || message.jsonrpc !== "2.0")
      return { kind: "drop", reason: "malformed response" };
    return { kind: "message", message };
  }
  if (hasId && !isValidId(message.id)) {
    return {
      kind: "reply",
      response: errorResponse(
        null,
        INVALID_REQUEST,
        `Invalid request: id must be a string (at most ${MAX_ID_CHARS} characters), a number or null`,
      ),
    };
  }
  if (message.jsonrpc !== "2.0") return refuse(shape, INVALID_REQUEST, 'Invalid request: jsonrpc must be "2.0"', true);
  if (typeof message.method !== "string")
    return refuse(shape, INVALID_REQUEST, "Invalid request: method must be a string", true);
  return { kind: "message", message };
}
