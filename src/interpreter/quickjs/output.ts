// What one eval returns to the model: console lines, then the result or the error, capped.

/** File name the prelude is evaluated under; its frames are noise in user-facing stacks. */
export const PRELUDE_FILE = "<interpreter>";
/** File name user code is evaluated under. */
export const USER_FILE = "eval.js";

const MAX_STACK_FRAMES = 10;

/**
 * Console output of one eval. Keeps at most `cap` characters and only counts the rest, so a
 * script printing in a loop cannot grow host memory.
 */
export class ConsoleCollector {
  private readonly parts: string[] = [];
  private size = 0;
  private dropped = 0;

  constructor(private readonly cap: number) {}

  push(line: string): void {
    const needed = line.length + (this.parts.length > 0 ? 1 : 0);
    const room = this.cap - this.size;
    if (needed <= room) {
      this.parts.push(line);
      this.size += needed;
      return;
    }
    if (room > 1 && this.dropped === 0) {
      const kept = safeSlice(line, room - (this.parts.length > 0 ? 1 : 0));
      this.parts.push(kept);
      this.size = this.cap;
      this.dropped += line.length - kept.length;
      return;
    }
    this.dropped += needed;
  }

  get text(): string {
    return this.parts.join("\n");
  }

  get droppedChars(): number {
    return this.dropped;
  }
}

export type ErrorInfo = { name: string; message: string; stack?: string };

export function describeError(info: ErrorInfo): string {
  const head = info.message ? `${info.name}: ${info.message}` : info.name;
  const stack = trimStack(info.stack ?? "");
  return stack ? `${head}\n${stack}` : head;
}

/** Drops prelude frames and keeps the innermost frames of deep stacks (a stack overflow has thousands). */
export function trimStack(stack: string): string {
  const frames = stack
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !line.includes(PRELUDE_FILE));
  if (frames.length <= MAX_STACK_FRAMES) return frames.join("\n");
  const more = frames.length - MAX_STACK_FRAMES;
  return [...frames.slice(0, MAX_STACK_FRAMES), `    ... ${more} more frame${more === 1 ? "" : "s"}`].join("\n");
}

/**
 * Joins console output and the final result or error within `cap` characters. The tail (result
 * or error) keeps at least half of the budget: a script that logs a lot still shows why it failed.
 */
export function assembleOutput(parts: { console: string; consoleDropped: number; tail: string }, cap: number): string {
  const consoleLength = parts.console.length + parts.consoleDropped;
  const tailCap = consoleLength === 0 ? cap : Math.max(cap - consoleLength, Math.floor(cap / 2));
  const tail = truncate(parts.tail, tailCap, 0);
  const consoleCap = Math.max(0, cap - Math.min(parts.tail.length, tailCap));
  const head = truncate(parts.console, consoleCap, parts.consoleDropped);
  const text = [head, tail].filter((part) => part !== "").join("\n");
  return text === "" ? "(no output)" : text;
}

function truncate(text: string, cap: number, alreadyDropped: number): string {
  if (text.length <= cap && alreadyDropped === 0) return text;
  const kept = safeSlice(text, cap);
  const dropped = text.length - kept.length + alreadyDropped;
  const separator = kept === "" || kept.endsWith("\n") ? "" : "\n";
  return `${kept}${separator}[truncated ${dropped} chars]`;
}

/** Slices without leaving half of a surrogate pair at the end. */
function safeSlice(text: string, length: number): string {
  if (length <= 0) return "";
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
