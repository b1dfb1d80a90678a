import { closeSync, createReadStream, fstatSync, openSync, readSync } from "node:fs";
import { getMimeType, isTextMimeType, looksBinary, SNIFF_BYTES } from "../files/mime.js";

// Literal search over a list of files, for when ripgrep is not installed. Small files are read
// with synchronous calls in short batches (several times faster than one threadpool round trip per
// call, and the event loop still gets a turn between batches); the raw bytes are scanned first and
// only files containing the pattern are decoded. Files above `wholeFileLimitBytes` are streamed.

/** Matched lines longer than this are clipped: a minified bundle must not put megabytes in a result. */
export const MAX_MATCH_TEXT_CHARS = 2000;

export function clipMatchText(text: string): string {
  if (text.length <= MAX_MATCH_TEXT_CHARS) return text;
  return `${text.slice(0, MAX_MATCH_TEXT_CHARS)} [... ${text.length - MAX_MATCH_TEXT_CHARS} more characters]`;
}

const BATCH = 64;
const yieldToLoop = () => new Promise<void>((r) => setImmediate(r));

/** Calls `onMatch(file, line, text)` per matching line until it returns false. */
export async function grepFiles(
  files: readonly string[],
  pattern: string,
  wholeFileLimitBytes: number,
  onMatch: (file: string, line: number, text: string) => boolean,
): Promise<void> {
  const needle = Buffer.from(pattern, "utf8");
  const large: string[] = [];
  let going = true;
  for (let i = 0; i < files.length && going; i++) {
    if (i % BATCH === BATCH - 1) await yieldToLoop();
    const file = files[i]!;
    const mime = getMimeType(file);
    if (mime && !isTextMimeType(mime)) continue;
    const data = readSmallFile(file, wholeFileLimitBytes);
    if (data === "large") large.push(file);
    if (!data || data === "large" || data.indexOf(needle) === -1 || looksBinary(data)) continue;
    searchText(data.toString("utf8"), pattern, (line, text) => (going = onMatch(file, line, text)));
  }
  for (const file of large) {
    if (!going) break;
    await streamSearch(file, pattern, (line, text) => (going = onMatch(file, line, text)));
  }
}

function readSmallFile(file: string, limit: number): Buffer | "large" | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch {
    return undefined;
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile()) return undefined;
    if (info.size > limit) return "large";
    const buffer = Buffer.allocUnsafe(info.size);
    const read = readSync(fd, buffer, 0, info.size, 0);
    return buffer.subarray(0, read);
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

async function streamSearch(
  file: string,
  pattern: string,
  onLine: (line: number, text: string) => boolean,
): Promise<void> {
  let head: Buffer;
  try {
    const fd = openSync(file, "r");
    try {
      head = Buffer.alloc(SNIFF_BYTES);
      head = head.subarray(0, readSync(fd, head, 0, SNIFF_BYTES, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return;
  }
  if (looksBinary(head)) return;
  const stream = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 20 });
  let partial = "";
  let line = 0;
  const check = (text: string) => {
    line++;
    if (!text.includes(pattern)) return true;
    return onLine(line, clipMatchText(text.endsWith("\r") ? text.slice(0, -1) : text));
  };
  try {
    for await (const chunk of stream) {
      const lines = (partial + (chunk as string)).split("\n");
      partial = lines.pop()!;
      for (const text of lines) if (!check(text)) return;
    }
    if (partial !== "") check(partial);
  } catch {
    // unreadable midway: keep what was found
  } finally {
    stream.destroy();
  }
}

/** Calls `onMatch` once per line containing `pattern`; stops when it returns false. */
export function searchText(text: string, pattern: string, onMatch: (line: number, text: string) => boolean): void {
  let line = 1;
  let counted = 0;
  let index = text.indexOf(pattern);
  while (index !== -1) {
    const lineStart = text.lastIndexOf("\n", index - 1) + 1;
    for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < lineStart; nl = text.indexOf("\n", nl + 1)) line++;
    counted = lineStart;
    let lineEnd = text.indexOf("\n", index);
    if (lineEnd === -1) lineEnd = text.length;
    let lineText = text.slice(lineStart, lineEnd);
    if (lineText.endsWith("\r")) lineText = lineText.slice(0, -1);
    if (!onMatch(line, clipMatchText(lineText))) return;
    index = lineEnd >= text.length ? -1 : text.indexOf(pattern, lineEnd + 1);
  }
}
