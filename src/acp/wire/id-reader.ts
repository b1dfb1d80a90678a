// Reads the top-level `id` of one JSON-RPC line as the raw text the editor wrote, so the answer can
// echo it byte for byte: a 30-digit number is not the double JSON.parse makes of it, and
// `"\u00e9"` is not `"é"` to a client that compares what it sent. JSON-RPC wants the request's id
// in the answer whenever the request can be read as far as its id, and `null` only when it cannot.
// So this is a validating JSON tokenizer (objects, arrays, strings, escapes, numbers, literals, any
// depth, without recursion) that stops as soon as the id is known: at the id itself for the usual
// `{"jsonrpc":"2.0","id":...` that costs a few dozen bytes, whatever follows. It takes the line in
// pieces, so an over-limit line the splitter does not keep is read while it streams past.

/** The id as written (a string with its quotes, a number, or `null`), or why there is none. */
export type IdRead =
  | { kind: "id"; raw: string }
  /** The line is valid JSON to its end and has no top-level id (a notification, or a response without one). */
  | { kind: "none" }
  /** The line breaks before its id is complete, or the id is not a string, number or null, or too long. */
  | { kind: "unreadable" };

const enum S {
  Start,
  Value,
  ObjectFirst,
  ObjectKey,
  Colon,
  ArrayFirst,
  After,
  String,
  Escape,
  Hex,
  Number,
  Literal,
  Done,
}

const enum N {
  Minus,
  Zero,
  Int,
  Dot,
  Frac,
  E,
  ESign,
  Exp,
}

const OBJECT = 1;
const ARRAY = 2;
/** Longest key text (escapes and all) compared with "id"; `"\u0069\u0064"` is 12 bytes. */
const MAX_KEY_BYTES = 64;
const isSpace = (b: number) => b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
const isHex = (b: number) => isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66);
/** `"` `\\` `/` `b` `f` `n` `r` `t`: the escapes other than `\\u`. */
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const utf8 = new TextDecoder("utf-8", { fatal: true });
const latin = new TextDecoder("latin1");

/** Index of `byte` in `bytes` from `from`, or `n` (the length) when there is none. */
function indexOr(bytes: Uint8Array, byte: number, from: number, n: number): number {
  const at = bytes.indexOf(byte, from);
  return at === -1 ? n : at;
}

export type IdReader = {
  /** Reads the next piece of the line; true once the answer is known (later pieces need not be fed). */
  feed(bytes: Uint8Array): boolean;
  /** The line has ended. */
  finish(): IdRead;
};

/** `maxIdBytes`: a longer id is unreadable (the line limit: nothing longer could be echoed anyway). */
export function createIdReader(maxIdBytes: number): IdReader {
  let state = S.Start;
  // The open containers, as runs (a line nested 15 million arrays deep is one run, not 15 MB).
  const runKinds: number[] = [];
  const runLengths: number[] = [];
  let depth = 0;
  let numberState = N.Int;
  let literal = "";
  let literalAt = 0;
  let hexLeft = 0;
  let inKey = false;
  let key: number[] | undefined; // the depth-1 key being read, while it is short enough to be "id"
  let nextIsId = false; // the value about to start is the id's
  let capturing = false;
  let captured: Uint8Array[] = [];
  let capturedBytes = 0;
  let result: IdRead | undefined;

  const decide = (read: IdRead) => {
    result = read;
    state = S.Done;
  };
  const push = (kind: number, count = 1) => {
    const last = runKinds.length - 1;
    if (last >= 0 && runKinds[last] === kind) runLengths[last]! += count;
    else {
      runKinds.push(kind);
      runLengths.push(count);
    }
    depth += count;
  };
  /** Closes up to `count` containers of the innermost run; how many it closed. */
  const pop = (count = 1) => {
    const last = runKinds.length - 1;
    const closed = Math.min(count, runLengths[last]!);
    runLengths[last]! -= closed;
    if (runLengths[last] === 0) {
      runKinds.pop();
      runLengths.pop();
    }
    depth -= closed;
    return closed;
  };
  const top = () => runKinds[runKinds.length - 1];
  const keyIsId = (bytes: number[]) => {
    if (bytes.length === 2 && bytes[0] === 0x69 && bytes[1] === 0x64) return true;
    if (!bytes.includes(0x5c)) return false;
    try {
      return JSON.parse(`"${latin.decode(Uint8Array.from(bytes))}"`) === "id";
    } catch {
      return false;
    }
  };
  const finishCapture = () => {
    capturing = false;
    const bytes = captured.length === 1 ? captured[0]! : Buffer.concat(captured, capturedBytes);
    captured = [];
    try {
      const raw = utf8.decode(bytes);
      if (raw === "true" || raw === "false") return decide({ kind: "unreadable" });
      decide({ kind: "id", raw });
    } catch {
      decide({ kind: "unreadable" }); // not UTF-8: it cannot be echoed
    }
  };
  /** A value (or key) ended at the byte before `at` of `bytes`. */
  const valueEnded = (bytes: Uint8Array, at: number, from: number) => {
    if (capturing) {
      captured.push(bytes.subarray(from, at));
      capturedBytes += at - from;
      if (capturedBytes > maxIdBytes) return decide({ kind: "unreadable" });
      return finishCapture();
    }
    state = S.After;
  };
  const fail = () => {
    decide({ kind: "unreadable" });
    return true;
  };
  /** Adds a byte of a depth-1 key, forgetting the key once it is too long to be "id". */
  const keyByte = (b: number) => {
    if (!key) return;
    if (key.length < MAX_KEY_BYTES) key.push(b);
    else key = undefined;
  };

  // One of the long functions that stay long, on purpose: an exhaustive switch over the tokenizer's
  // states (S, and N inside numbers), one short case per state, run once per byte. The cases share
  // the piece's cursor and capture marks (i, captureFrom, quoteAt, slashAt), and a case may hand the
  // same byte to the next state (`continue` without i++); split into functions, every byte would pay
  // a call and those marks would travel in and out of each. The fuzz and robust tests cover it.
  function feed(bytes: Uint8Array): boolean {
    if (state === S.Done) return true;
    const n = bytes.length;
    let captureFrom = 0; // where the captured id starts in this piece
    let quoteAt = -1;
    let slashAt = -1;
    let i = 0;
    while (i < n) {
      const b = bytes[i]!;
      switch (state) {
        case S.Start:
          if (isSpace(b)) break;
          if (b !== 0x7b) return fail(); // not an object: no id to read
          push(OBJECT);
          state = S.ObjectFirst;
          break;
        case S.Value:
          if (isSpace(b)) break;
          if (nextIsId) {
            nextIsId = false;
            if (b === 0x7b || b === 0x5b) return fail(); // an object or array is no id
            capturing = true;
            captureFrom = i;
            captured = [];
            capturedBytes = 0;
          }
          if (b === 0x7b) {
            push(OBJECT);
            state = S.ObjectFirst;
          } else if (b === 0x5b) {
            push(ARRAY);
            state = S.ArrayFirst;
          } else if (b === 0x22) {
            inKey = false;
            state = S.String;
          } else if (b === 0x2d) {
            numberState = N.Minus;
            state = S.Number;
          } else if (isDigit(b)) {
            numberState = b === 0x30 ? N.Zero : N.Int;
            state = S.Number;
          } else if (b === 0x74 || b === 0x66 || b === 0x6e) {
            literal = b === 0x74 ? "true" : b === 0x66 ? "false" : "null";
            literalAt = 1;
            state = S.Literal;
          } else return fail();
          break;
        case S.ObjectFirst:
        case S.ObjectKey:
          if (isSpace(b)) break;
          if (b === 0x7d && state === S.ObjectFirst) {
            pop();
            state = S.After;
            break;
          }
          if (b !== 0x22) return fail();
          inKey = true;
          key = depth === 1 ? [] : undefined;
          state = S.String;
          break;
        case S.Colon:
          if (isSpace(b)) break;
          if (b !== 0x3a) return fail();
          state = S.Value;
          break;
        case S.ArrayFirst:
          if (isSpace(b)) break;
          if (b === 0x5b) {
            // A run of openings (a deeply nested line) in one tight loop.
            let j = i;
            while (j < n && bytes[j] === 0x5b) j++;
            push(ARRAY, j - i);
            i = j;
            continue;
          }
          if (b === 0x5d) {
            pop();
            state = S.After;
            break;
          }
          state = S.Value;
          continue; // the same byte starts the first element
        case S.After: {
          if (isSpace(b)) break;
          if (depth === 0) return fail(); // something after the message
          const inner = top();
          if (b === 0x5d && inner === ARRAY) {
            // A run of closings, within the innermost run of arrays.
            let j = i;
            while (j < n && bytes[j] === 0x5d) j++;
            i += pop(j - i);
            continue;
          }
          if (b === 0x2c) state = inner === OBJECT ? S.ObjectKey : S.Value;
          else if (b === 0x7d && inner === OBJECT) pop();
          else return fail();
          break;
        }
        case S.String: {
          // memchr for the next quote and backslash, each found once per piece (a string of many
          // escapes must not search to the end of the piece at every one). Control bytes inside a
          // string are not looked for: JSON.parse refuses them anyway, and the id around them is readable.
          if (quoteAt < i) quoteAt = indexOr(bytes, 0x22, i, n);
          if (slashAt < i) slashAt = indexOr(bytes, 0x5c, i, n);
          const j = quoteAt < slashAt ? quoteAt : slashAt;
          if (key && inKey) for (let k = i; k < j; k++) keyByte(bytes[k]!);
          if (j === n) {
            i = n;
            continue;
          }
          if (j === slashAt) {
            if (inKey) keyByte(0x5c);
            state = S.Escape;
            i = j + 1;
            continue;
          }
          i = j;
          if (inKey) {
            inKey = false;
            nextIsId = key !== undefined && keyIsId(key);
            key = undefined;
            state = S.Colon;
          } else valueEnded(bytes, i + 1, captureFrom);
          break;
        }
        case S.Escape:
          if (inKey) keyByte(b);
          if (b === 0x75) {
            hexLeft = 4;
            state = S.Hex;
          } else if (SIMPLE_ESCAPES.has(b)) state = S.String;
          else return fail();
          break;
        case S.Hex:
          if (!isHex(b)) return fail();
          if (inKey) keyByte(b);
          if (--hexLeft === 0) state = S.String;
          break;
        case S.Number: {
          const digit = isDigit(b);
          switch (numberState) {
            case N.Minus:
              if (!digit) return fail();
              numberState = b === 0x30 ? N.Zero : N.Int;
              i++;
              continue;
            case N.Dot:
            case N.ESign:
              if (!digit) return fail();
              numberState = numberState === N.Dot ? N.Frac : N.Exp;
              i++;
              continue;
            case N.E:
              if (digit) numberState = N.Exp;
              else if (b === 0x2b || b === 0x2d) numberState = N.ESign;
              else return fail();
              i++;
              continue;
            default:
              if (digit && numberState !== N.Zero) {
                i++;
                continue;
              }
              if (b === 0x2e && (numberState === N.Zero || numberState === N.Int)) {
                numberState = N.Dot;
                i++;
                continue;
              }
              if ((b === 0x65 || b === 0x45) && numberState !== N.Exp) {
                numberState = N.E;
                i++;
                continue;
              }
          }
          // The number ended before this byte, which must be able to follow a value.
          if (!isSpace(b) && b !== 0x2c && b !== 0x7d && b !== 0x5d) return fail();
          valueEnded(bytes, i, captureFrom);
          if (result) return true;
          continue; // the same byte, now after the value
        }
        case S.Literal:
          if (b !== literal.charCodeAt(literalAt)) return fail();
          if (++literalAt === literal.length) valueEnded(bytes, i + 1, captureFrom);
          break;
      }
      if (result) return true;
      i++;
    }
    if (capturing) {
      // Kept past this piece, whose memory the caller may reuse.
      captured.push(Buffer.from(bytes.subarray(captureFrom, n)));
      capturedBytes += n - captureFrom;
      if (capturedBytes > maxIdBytes) return fail();
    }
    return false;
  }

  return {
    feed,
    finish() {
      if (result) return result;
      // Valid to the end (the message closed, nothing after it) and no id on the way.
      if (state === S.After && depth === 0) return { kind: "none" };
      return { kind: "unreadable" };
    },
  };
}

/** The id of a whole line. */
export function readLineId(bytes: Uint8Array, maxIdBytes: number): IdRead {
  const reader = createIdReader(maxIdBytes);
  reader.feed(bytes);
  return reader.finish();
}
