// The `read` window: lines [offset, offset+limit) of a text, plus how many lines the text has so the
// tool can tell the model where it is. A trailing newline ends the last line; it does not start a
// new empty one ("a\nb\n" has 2 lines, "" has 0).

export const DEFAULT_READ_OFFSET = 0;
export const DEFAULT_READ_LIMIT = 500;

export type LineWindowResult = { content: string; totalLines: number; error?: undefined } | { error: string };

export function offsetPastEndMessage(offset: number, totalLines: number): string {
  return `Line offset ${offset} exceeds file length (${totalLines} lines)`;
}

/** Checks offset/limit; returns an error message or the normalised pair. */
export function normaliseWindow(
  offset: number | undefined,
  limit: number | undefined,
): { offset: number; limit: number } | { error: string } {
  const o = offset ?? DEFAULT_READ_OFFSET;
  const l = limit ?? DEFAULT_READ_LIMIT;
  if (!Number.isFinite(o) || o < 0) return { error: `offset must be a non-negative number, got ${o}` };
  if (!Number.isFinite(l) || l < 0) return { error: `limit must be a non-negative number, got ${l}` };
  return { offset: Math.floor(o), limit: Math.floor(l) };
}

export function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** Window over a whole text held in memory. */
export function windowLines(text: string, offset?: number, limit?: number): LineWindowResult {
  const window = normaliseWindow(offset, limit);
  if ("error" in window) return window;
  const lines = splitLines(text);
  return finish(lines.slice(window.offset, window.offset + window.limit), lines.length, window.offset);
}

/**
 * Window over text that arrives in chunks (large files are streamed instead of loaded): keeps only
 * the requested lines while counting all of them.
 */
export function createLineWindowCollector(offset?: number, limit?: number) {
  const window = normaliseWindow(offset, limit);
  const kept: string[] = [];
  let lineIndex = 0;
  let partial = "";
  let sawText = false;
  const take = (line: string) => {
    if ("error" in window) return;
    if (lineIndex >= window.offset && lineIndex < window.offset + window.limit) kept.push(line);
    lineIndex++;
  };
  return {
    push(chunk: string): void {
      if (chunk.length === 0) return;
      sawText = true;
      let start = 0;
      let index: number;
      while ((index = chunk.indexOf("\n", start)) !== -1) {
        take(partial + chunk.slice(start, index));
        partial = "";
        start = index + 1;
      }
      partial += chunk.slice(start);
    },
    finish(): LineWindowResult {
      if ("error" in window) return window;
      if (partial !== "") take(partial);
      const total = sawText ? lineIndex : 0;
      return finish(kept, total, window.offset);
    },
  };
}

function finish(lines: string[], totalLines: number, offset: number): LineWindowResult {
  if (offset > 0 && offset >= totalLines) return { error: offsetPastEndMessage(offset, totalLines) };
  return { content: lines.join("\n"), totalLines };
}
