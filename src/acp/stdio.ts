import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../util/logger.js";
import type { EarlyPreface } from "./early-handshake.js";
import { classifyLine, DEFAULT_TRANSPORT_LIMITS, type TransportLimits } from "./inbound.js";
import { createLineSplitter } from "./line-splitter.js";
import { encodeMessage } from "./outbound.js";

/**
 * Gathers lines written in one turn of the event loop into a single write to the pipe, and honours
 * its backpressure. Replaying a long session sends thousands of notifications; one syscall each
 * would dominate the time. Once the pipe has failed (the editor went away) writes are dropped.
 */
export function createLineSink(target: Writable) {
  let pending: string[] = [];
  let scheduled = false;
  let broken = false;
  let drained: Promise<void> = Promise.resolve();
  let releaseDrain = () => {};
  target.on("error", () => {
    broken = true;
    releaseDrain();
  });
  const flush = () => {
    scheduled = false;
    if (pending.length === 0 || broken) return void (pending = []);
    const text = pending.join("");
    pending = [];
    if (!target.write(text)) {
      drained = new Promise((resolve) => {
        releaseDrain = resolve;
        target.once("drain", () => resolve());
      });
    }
  };
  return {
    write(line: string): Promise<void> {
      if (broken) return Promise.resolve();
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

export type StdioTransportOptions = {
  input: Readable;
  output: Writable;
  logger: Logger;
  limits?: TransportLimits;
  /**
   * Called once when stdin ends. The stream stays open so requests already read can still be
   * answered; the caller ends it with close(). Default: close at once.
   */
  onInputEnd?: () => void;
  /** What the early handshake read (and perhaps answered) before this transport existed. */
  preface?: EarlyPreface;
};

export type StdioTransport = {
  stream: acp.Stream;
  /** Requests read from the editor and not answered yet. */
  inflight(): number;
  /** Resolves true once every request read so far has been answered, false after `timeoutMs`. */
  settled(timeoutMs: number): Promise<boolean>;
  /** Stops reading input (what arrives later is ignored). */
  stopReading(): void;
  /**
   * Answers every open request (prompts with stopReason "cancelled", the rest with `reason` as an
   * error) and ends the stream, which closes the connection.
   */
  close(reason: string): void;
  /** Writes out what is batched now. */
  flush(): void;
};

const idKey = (id: unknown) => `${typeof id}:${String(id)}`;

/**
 * ACP over stdio. Incoming lines are checked (size, depth, encoding, envelope) before the SDK sees
 * them, so no input can stop the connection; outgoing messages skip the two WHATWG stream layers the
 * SDK would put on every message: its connection only ever calls `getWriter().write(message)` and
 * `releaseLock()`, so a plain object with those methods (checked by the end-to-end tests)
 * serializes straight into the batching sink, and never rejects (a rejected write closes the SDK's
 * connection).
 */
export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  const { input, logger } = options;
  const limits = options.limits ?? DEFAULT_TRANSPORT_LIMITS;
  const sink = createLineSink(options.output);
  const splitter = createLineSplitter(limits.maxMessageBytes);
  const open = new Map<string, { id: unknown; method: string; count: number }>();
  const waiters = new Set<() => void>();
  let controller!: ReadableStreamDefaultController<acp.AnyMessage>;
  let reading = true;
  let ended = false;

  const answered = (id: unknown) => {
    const key = idKey(id);
    const entry = open.get(key);
    if (!entry) return false;
    if (--entry.count === 0) open.delete(key);
    if (open.size === 0) for (const wake of [...waiters]) wake();
    return true;
  };

  // Requests the early handshake answered, in the order they were read. An editor answered early
  // sends its next request at once, but the SDK must have run each early request's own handler
  // first (initialize records the client's capabilities, session/new builds the session the editor
  // was promised): later messages wait here until the SDK's (dropped) answer to it is sent.
  const earlyAnswers = [...(options.preface?.answered ?? [])];
  let earlyDelivered = false;
  let heldBack: acp.AnyMessage[] = [];
  const enqueue = (message: acp.AnyMessage) => {
    const early = earlyAnswers[0];
    if (!early || ended) return controller.enqueue(message);
    const record = message as Record<string, unknown>;
    if (!earlyDelivered && record.method === early.method && record.id === early.id) {
      earlyDelivered = true;
      return controller.enqueue(message);
    }
    heldBack.push(message);
  };
  const send = (message: unknown): Promise<void> => {
    const encoded = encodeMessage(message);
    const record = message as Record<string, unknown>;
    if (record && typeof record === "object" && !("method" in record) && "id" in record) {
      // Answers to requests that close() already failed are dropped: each request is answered once.
      if (!answered(record.id) && ended) return Promise.resolve();
      const early = earlyAnswers[0];
      if (early && earlyDelivered && record.id === early.id) {
        // The early handshake already sent this answer; the SDK's must be the same bytes.
        if (!encoded.ok || encoded.line !== early.line)
          logger.error(
            `${early.method} was answered early with ${early.line.trim()} but the SDK answers ${encoded.ok ? encoded.line.trim() : encoded.reason}`,
          );
        earlyAnswers.shift();
        earlyDelivered = false;
        const held = heldBack;
        heldBack = [];
        for (const message of held) enqueue(message);
        return Promise.resolve();
      }
    }
    if (encoded.ok) return sink.write(encoded.line);
    logger.error(encoded.reason);
    if (encoded.answer) return sink.write(encoded.answer);
    // One of our own requests that cannot be sent: fail it locally so its caller does not wait forever.
    if (record && typeof record === "object" && "method" in record && "id" in record && !ended) {
      controller.enqueue({
        jsonrpc: "2.0",
        id: record.id,
        error: { code: -32603, message: "Internal error: the request could not be encoded" },
      } as acp.AnyMessage);
    }
    return Promise.resolve();
  };

  const deliver = (lines: ReturnType<typeof splitter.push>) => {
    for (const line of lines) {
      if (!reading) return;
      const inbound = classifyLine(line, limits);
      if (inbound.kind === "drop") logger.debug(`ignored input: ${inbound.reason}`);
      else if (inbound.kind === "reply") void sink.write(encodeLine(inbound.response));
      else {
        const { message } = inbound;
        if (typeof message.method === "string" && "id" in message) {
          const key = idKey(message.id);
          const entry = open.get(key);
          if (entry) entry.count++;
          else open.set(key, { id: message.id, method: message.method, count: 1 });
        }
        enqueue(message as acp.AnyMessage);
      }
    }
  };

  const onData = (chunk: Buffer | string) =>
    deliver(splitter.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk));
  const onEnd = () => {
    deliver(splitter.end());
    if (options.onInputEnd) options.onInputEnd();
    else close("the editor closed the connection");
  };
  const stopReading = () => {
    reading = false;
    input.off("data", onData);
    input.off("end", onEnd);
    input.pause();
  };
  const close = (reason: string) => {
    stopReading();
    if (ended) return;
    for (const { id, method, count } of open.values()) {
      if (earlyAnswers.some((early) => early.id === id)) continue; // answered by the early handshake
      // A turn that did not wind down in time still ends the way the editor expects: cancelled.
      const outcome =
        method === "session/prompt"
          ? { result: { stopReason: "cancelled" } }
          : { error: { code: -32603, message: `Internal error: ${reason}` } };
      for (let i = 0; i < count; i++) void sink.write(encodeLine({ jsonrpc: "2.0", id, ...outcome }));
    }
    open.clear();
    ended = true;
    for (const wake of [...waiters]) wake();
    controller.close();
    sink.flush();
  };

  const readable = new ReadableStream<acp.AnyMessage>({
    start(c) {
      controller = c;
      const preface = options.preface;
      if (preface) {
        for (const chunk of preface.chunks) deliver(splitter.push(chunk));
        if (preface.ended) return void queueMicrotask(onEnd);
        // The early handshake paused stdin; a new listener alone would not restart it.
        queueMicrotask(() => reading && input.resume());
      }
      input.on("data", onData);
      input.on("end", onEnd);
      input.on("error", (error) => {
        logger.warn("stdin failed", error);
        onEnd();
      });
    },
  });
  const writer = {
    write: send,
    releaseLock: () => undefined,
    close: async () => sink.flush(),
    ready: Promise.resolve(),
  };
  const writable = { getWriter: () => writer, locked: false } as unknown as WritableStream<acp.AnyMessage>;

  return {
    stream: { readable, writable },
    inflight: () => [...open.values()].reduce((sum, e) => sum + e.count, 0),
    settled(timeoutMs) {
      if (open.size === 0 || ended) return Promise.resolve(open.size === 0);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(open.size === 0);
        };
        const timer = setTimeout(wake, timeoutMs);
        waiters.add(wake);
      });
    },
    stopReading,
    close,
    flush: () => sink.flush(),
  };
}

function encodeLine(message: unknown): string {
  const encoded = encodeMessage(message);
  return encoded.ok ? encoded.line : (encoded.answer ?? "");
}
