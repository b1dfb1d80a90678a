import type { Writable } from "node:stream";

/**
 * A WritableStream over a Node stream that gathers the chunks written in one turn of the event loop
 * into a single write. Replaying a long session sends thousands of notifications; one syscall per
 * message would dominate the time.
 */
export function batchedWritable(target: Writable): WritableStream<Uint8Array> {
  let pending: Uint8Array[] = [];
  let size = 0;
  let scheduled = false;
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const chunk = pending.length === 1 ? pending[0]! : Buffer.concat(pending, size);
    pending = [];
    size = 0;
    target.write(chunk);
  };
  return new WritableStream<Uint8Array>({
    write(chunk) {
      pending.push(chunk);
      size += chunk.byteLength;
      if (size >= 1 << 20) flush();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      // Respect backpressure from the pipe so a slow editor does not make us buffer without bound.
      if (target.writableNeedDrain) return new Promise<void>((resolve) => target.once("drain", () => resolve()));
      return undefined;
    },
    close() {
      flush();
      return new Promise<void>((resolve) => (target.writableLength === 0 ? resolve() : target.once("drain", () => resolve())));
    },
  });
}
