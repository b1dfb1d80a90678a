// Command output kept for the model: everything when it fits, else the head and the tail (errors
// and summaries tend to be at the end) around a marker saying how much was dropped. Memory stays
// bounded however much a command prints.

export function truncationMarker(omitted: number): string {
  return `\n[... ${omitted} characters truncated ...]\n`;
}

export function createOutputBuffer(maxChars: number) {
  const headLimit = Math.floor(maxChars / 2);
  const tailLimit = maxChars - headLimit;
  let head = "";
  let tail = "";
  let total = 0;
  return {
    push(chunk: string): void {
      total += chunk.length;
      let rest = chunk;
      if (head.length < headLimit) {
        const take = headLimit - head.length;
        head += rest.slice(0, take);
        rest = rest.slice(take);
      }
      if (rest.length === 0) return;
      tail += rest;
      if (tail.length > tailLimit * 2 + 4096) tail = tail.slice(-tailLimit);
    },
    get totalChars(): number {
      return total;
    },
    result(): { output: string; truncated: boolean } {
      if (total <= maxChars) return { output: head + tail, truncated: false };
      const kept = tail.slice(-tailLimit);
      return { output: head + truncationMarker(total - head.length - kept.length) + kept, truncated: true };
    },
  };
}

/**
 * A command's output as the remote backends (SSH, container) collect it: kept in an output buffer
 * and passed live to `onOutput`, whose failure loses nothing; a connection lost mid-command is said
 * at the end, since the command's outcome is then unknown.
 */
export function createCommandOutput(maxChars: number, onOutput?: (chunk: string) => void) {
  const buffer = createOutputBuffer(maxChars);
  const emit = (chunk: string) => {
    if (chunk.length === 0) return;
    buffer.push(chunk);
    try {
      onOutput?.(chunk);
    } catch {
      // a failing listener must not lose the output
    }
  };
  return {
    emit,
    lost: (reason: string) => emit(`${buffer.totalChars > 0 ? "\n" : ""}[${reason}; the command's outcome is unknown]`),
    result: () => buffer.result(),
  };
}
