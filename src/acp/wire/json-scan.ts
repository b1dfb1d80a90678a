// A single linear pass over the raw bytes of one JSON line, before anything parses it. It measures
// nesting depth without recursion (JSON.parse, zod and JSON.stringify all recurse, and a line nested
// a few thousand levels deep overflows the stack in one of them), and sees which of method, result
// and error are top-level members (what decides whether a refused line was a request, a response or
// a notification). It never throws and never allocates per byte; strings are skipped with indexOf,
// so a 30 MB embedded file costs one memchr, not 30 million iterations. The id is read elsewhere,
// exactly as written (id-reader.ts).

export type LineShape = {
  /** Deepest nesting of objects and arrays seen (at most the limit + 1). */
  depth: number;
  /**
   * Objects, arrays and commas outside strings: about the number of JSON values, which is what
   * JSON.parse's time and memory grow with (10 million `{}` take it 8 s and 640 MB).
   */
  values: number;
  hasMethod: boolean;
  /** A `result` or `error` member: the line is (or claims to be) a response. */
  hasOutcome: boolean;
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COLON = 0x3a;
const COMMA = 0x2c;

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

function keyIs(bytes: Uint8Array, open: number, close: number, key: string): boolean {
  if (close - open - 1 !== key.length) return false;
  for (let k = 0; k < key.length; k++) if (bytes[open + 1 + k] !== key.charCodeAt(k)) return false;
  return true;
}

/**
 * Scans one line (possibly only the first part of one, for lines over the size limit). Depth counting
 * stops mattering at `maxDepth + 1`, but the scan goes on to find members written after a deep one.
 */
export function scanJsonLine(bytes: Uint8Array, maxDepth: number): LineShape {
  let hasMethod = false;
  let hasOutcome = false;
  let depth = 0;
  let deepest = 0;
  let values = 0;
  let i = skipSpace(bytes, 0);
  const topIsObject = bytes[i] === OPEN_BRACE;
  const n = bytes.length;
  while (i < n) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      const close = stringEnd(bytes, i);
      if (close === -1) break;
      if (depth === 1 && topIsObject && bytes[skipSpace(bytes, close + 1)] === COLON) {
        if (keyIs(bytes, i, close, "method")) hasMethod = true;
        else if (keyIs(bytes, i, close, "result") || keyIs(bytes, i, close, "error")) hasOutcome = true;
      }
      i = close + 1;
      continue;
    }
    if (b === OPEN_BRACE || b === OPEN_BRACKET || b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      // A run of the same bracket (a deeply nested line) in one tight loop.
      let j = i + 1;
      while (j < n && bytes[j] === b) j++;
      if (b === OPEN_BRACE || b === OPEN_BRACKET) {
        values += j - i;
        depth += j - i;
        if (depth > deepest) deepest = Math.min(depth, maxDepth + 1);
      } else depth -= j - i;
      i = j;
      continue;
    }
    if (b === COMMA) values++;
    i++;
  }
  return { depth: deepest, values, hasMethod, hasOutcome };
}
