import * as acp from "@agentclientprotocol/sdk/unstable";
import { Readable, type Writable } from "node:stream";

/**
 * Gathers lines written in one turn of the event loop into a single write to the pipe, and honours
 * its backpressure. Replaying a long session sends thousands of notifications; one syscall each
 * would dominate the time.
 */
export function createLineSink(target: Writable) {
  let pending: string[] = [];
  let scheduled = false;
  let drained: Promise<void> = Promise.resolve();
  const flush = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join("");
    pending = [];
    if (!target.write(text)) drained = new Promise((resolve) => target.once("drain", () => resolve()));
  };
  return {
    write(line: string): Promise<void> {
      pending.push(line);
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
      return drained;
    },
    flush,
  };
}

/**
 * ACP over stdio. Incoming lines go through the SDK's ndjson parser (it answers malformed lines and
 * batches with the right errors). Outgoing messages skip the two WHATWG stream layers the SDK would
 * put on every message: its connection only ever calls `getWriter().write(message)` and
 * `releaseLock()`, so a plain object with those methods (checked by the end-to-end tests) serializes
 * straight into the batching sink.
 */
export function stdioStream(stdin: NodeJS.ReadableStream & Readable, stdout: Writable): acp.Stream {
  const sink = createLineSink(stdout);
  const errorsOut = new WritableStream<Uint8Array>({
    write(chunk) {
      return sink.write(Buffer.from(chunk).toString("utf8"));
    },
  });
  const parsed = acp.ndJsonStream(errorsOut, Readable.toWeb(stdin) as ReadableStream<Uint8Array>);
  const writer = {
    write: (message: unknown) => sink.write(`${JSON.stringify(message)}\n`),
    releaseLock: () => undefined,
    close: async () => sink.flush(),
    get ready() {
      return Promise.resolve();
    },
  };
  const writable = { getWriter: () => writer, locked: false } as unknown as WritableStream<acp.AnyMessage>;
  return { readable: parsed.readable, writable };
}
