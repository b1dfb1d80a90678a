import { createIdReader, type IdRead, type IdReader } from "./id-reader.js";

// Splits stdin into lines without ever holding more than the size limit. A line over the limit is
// not buffered: its first bytes are kept (enough to see its kind), its id is read as it streams
// past (wherever it is in the line), and the rest is counted and dropped until its newline, so a
// 1 GB line costs 64 KiB of memory and the stream goes on. A byte-order mark opening a line is
// dropped (RFC 8259 lets a parser ignore it; some Windows pipes write one).

export type SplitLine =
  | { kind: "line"; bytes: Buffer }
  /** `head` is the first bytes of the line; `size` its full length in bytes; `id` its id as written. */
  | { kind: "oversize"; head: Buffer; size: number; id: IdRead };

/** How much of an over-limit line is kept to see its kind. */
export const OVERSIZE_HEAD_BYTES = 64 * 1024;

export type LineSplitter = {
  push(chunk: Buffer): SplitLine[];
  /** The last line when the stream ends without a newline. */
  end(): SplitLine[];
};

const isBom = (segment: Buffer) => segment[0] === 0xef && segment[1] === 0xbb && segment[2] === 0xbf;

export function createLineSplitter(maxLineBytes: number): LineSplitter {
  let parts: Buffer[] = [];
  let length = 0;
  let head: Buffer | undefined; // set while skipping an over-limit line
  let skipped = 0;
  let reader: IdReader | undefined; // reads the skipped line's id
  let idKnown = false;
  let lineStart = true;

  const append = (segment: Buffer) => {
    if (lineStart && segment.length > 0) {
      lineStart = false;
      if (isBom(segment)) segment = segment.subarray(3);
    }
    if (head) {
      skipped += segment.length;
      if (!idKnown) idKnown = reader!.feed(segment);
      return;
    }
    if (length + segment.length <= maxLineBytes) {
      if (segment.length > 0) parts.push(Buffer.from(segment)); // the chunk's memory may be reused
      length += segment.length;
      return;
    }
    const all = Buffer.concat([...parts, segment]);
    head = Buffer.from(all.subarray(0, OVERSIZE_HEAD_BYTES));
    skipped = all.length;
    reader = createIdReader(maxLineBytes);
    idKnown = reader.feed(all);
    parts = [];
    length = 0;
  };

  const take = (): SplitLine | undefined => {
    lineStart = true;
    if (head) {
      const line: SplitLine = { kind: "oversize", head, size: skipped, id: reader!.finish() };
      head = undefined;
      reader = undefined;
      skipped = 0;
      return line;
    }
    if (length === 0) return undefined;
    let bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, length);
    if (bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, -1);
    parts = [];
    length = 0;
    return { kind: "line", bytes };
  };

  return {
    push(chunk) {
      const lines: SplitLine[] = [];
      let start = 0;
      for (let newline = chunk.indexOf(0x0a); newline !== -1; newline = chunk.indexOf(0x0a, start)) {
        append(chunk.subarray(start, newline));
        const line = take();
        if (line) lines.push(line);
        start = newline + 1;
      }
      if (start < chunk.length) append(chunk.subarray(start));
      return lines;
    },
    end() {
      const line = take();
      return line ? [line] : [];
    },
  };
}
