// A single linear pass over the raw bytes of one JSON line, before anything parses it. It measures
// nesting depth without recursion (JSON.parse, zod and JSON.stringify all recurse, and a line nested
// a few thousand levels deep overflows the stack in one of them), and picks out the top-level
// fields a JSON-RPC error answer needs: the id (when it is a short scalar) and which of
// method/result/error are present. It never throws and never allocates per byte; strings are
// skipped with indexOf, so a 30 MB embedded file costs one memchr, not 30 million iterations.

export type JsonRpcId = string | number | null;

export type LineShape = {
  /** Deepest nesting of objects and arrays seen (stops counting past the limit + 1). */
  depth: number;
  /** The top-level `id`: a scalar that can be echoed, `null` when present but unusable, undefined when absent. */
  id: JsonRpcId | undefined;
  hasMethod: boolean;
  /** A `result` or `error` member: the line is (or claims to be) a response. */
  hasOutcome: boolean;
};

/** Ids longer than this are not echoed back; the answer goes to `id: null`. */
export const MAX_ID_CHARS = 1024;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;

const isSpace = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;

/** Index of the quote that closes the string opened at `open`, or -1 when the line ends first. */
function stringEnd(bytes: Uint8Array, open: number): number {
  let from = open + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote === -1) return -1;
    let slashes = 0;
    for (let k = quote - 1; k > open && bytes[k] === BACKSLASH; k--) slashes++;
    if (slashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

function skipSpace(bytes: Uint8Array, at: number): number {
  while (at < bytes.length && isSpace(bytes[at])) at++;
  return at;
}

const decoder = new TextDecoder();

/** Reads a scalar JSON value at `at` as an id; null when it is not a usable id. */
function readId(bytes: Uint8Array, at: number): JsonRpcId {
  const first = bytes[at];
  let end = at;
  if (first === QUOTE) {
    end = stringEnd(bytes, at);
    if (end === -1 || end - at > MAX_ID_CHARS * 6) return null;
    end++;
  } else {
    while (
      end < bytes.length &&
      end - at < 64 &&
      !isSpace(bytes[end]) &&
      bytes[end] !== 0x2c &&
      bytes[end] !== CLOSE_BRACE
    )
      end++;
  }
  try {
    const value: unknown = JSON.parse(decoder.decode(bytes.subarray(at, end)));
    if (typeof value === "string") return value.length <= MAX_ID_CHARS ? value : null;
    if (typeof value === "number" && Number.isFinite(value)) return value;
  } catch {
    // not a scalar we can echo
  }
  return null;
}

function keyIs(bytes: Uint8Array, open: number, close: number, key: string): boolean {
  if (close - open - 1 !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (bytes[open + 1 + k] !== key.charCodeAt(k)) return false;
  return true;
}

/**
 * Scans one line (possibly only the first part of one, for lines over the size limit). Depth counting
 * stops mattering at `maxDepth + 1`, but the scan goes on to find an `id` written after a deep member.
 */
export function scanJsonLine(bytes: Uint8Array, maxDepth: number): LineShape {
  const shape: LineShape = { depth: 0, id: undefined, hasMethod: false, hasOutcome: false };
  let depth = 0;
  let topIsObject = false;
  let i = skipSpace(bytes, 0);
  if (bytes[i] === OPEN_BRACE) topIsObject = true;
  while (i < bytes.length) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      const close = stringEnd(bytes, i);
      if (close === -1) break;
      if (depth === 1 && topIsObject) {
        const after = skipSpace(bytes, close + 1);
        if (bytes[after] === COLON) {
          const value = skipSpace(bytes, after + 1);
          if (keyIs(bytes, i, close, "id") && shape.id === undefined) shape.id = readId(bytes, value);
          else if (keyIs(bytes, i, close, "method")) shape.hasMethod = true;
          else if (keyIs(bytes, i, close, "result") || keyIs(bytes, i, close, "error")) shape.hasOutcome = true;
          i = value;
          continue;
        }
      }
      i = close + 1;
      continue;
    }
    if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
      if (depth > shape.depth && shape.depth <= maxDepth) shape.depth = depth;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
    }
    i++;
  }
  return shape;
}
