import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Readable, Writable } from "node:stream";
import type { Logger } from "../../util/logger.js";
import type { EarlyAnswer, EarlyPreface } from "../early/early-handshake.js";
import { classifyLine, DEFAULT_TRANSPORT_LIMITS, type RawId, type TransportLimits } from "./inbound.js";
import { createLineSplitter } from "./line-splitter.js";
import { encodeMessage, responseLine, type Encoded } from "./outbound.js";

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

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** A request read from the editor and not answered yet, by the stand-in id the SDK knows it by. */
type OpenRequest = {
  /** The id as the editor wrote it, which its answer carries. */
  id: RawId;
  method: string;
  /** idKey of the parsed id, to find it by for `$/cancel_request`. */
  key: string;
  /** The early handshake answered it; the SDK's answer is compared and dropped. */
  early?: EarlyAnswer;
};

/**
 * ACP over stdio. Incoming lines are checked (size, depth, encoding, envelope) before the SDK sees
 * them, so no input can stop the connection; outgoing messages skip the two WHATWG stream layers the
 * SDK would put on every message: its connection only ever calls `getWriter().write(message)` and
 * `releaseLock()`, so a plain object with those methods (checked by the end-to-end tests)
 * serializes straight into the batching sink, and never rejects (a rejected write closes the SDK's
 * connection).
 *
 * The SDK never sees the editor's request ids: each request gets a stand-in (a fresh number, or a
 * fresh string for a string id, so its type is kept), and the answer goes out with the id exactly as
 * the editor wrote it. So a 10,000-character id, a 30-digit number or `"\u00e9"` comes back as sent,
 * and two requests that share an id are still two requests, each answered once.
 */
export function createStdioTransport(options: StdioTransportOptions): StdioTransport {
  const { input, logger } = options;
  const limits = options.limits ?? DEFAULT_TRANSPORT_LIMITS;
  const sink = createLineSink(options.output);
  const splitter = createLineSplitter(limits.maxMessageBytes);
  const open = new Map<string | number, OpenRequest>();
  /** Methods of open requests whose id is null (the SDK answers those with null too), in order. */
  const openNull: string[] = [];
  /**
   * Ids of our requests to the editor still waiting for its answer. A second answer to one is
   * dropped here: the SDK would print "Got response to unknown request" to stderr, and agent-shell
   * (whose Reject answers a dialog, then answers it again `cancelled` when it interrupts the turn)
   * shows every stderr line in the conversation.
   */
  const awaitingAnswer = new Set<unknown>();
  let standIns = 0;
  const waiters = new Set<() => void>();
  let controller!: ReadableStreamDefaultController<acp.AnyMessage>;
  let reading = true;
  let ended = false;

  const inflight = () => open.size + openNull.length;
  const wakeIfSettled = () => {
    if (inflight() === 0) for (const wake of [...waiters]) wake();
  };

  const register = (message: Record<string, unknown>, id: RawId): OpenRequest | undefined => {
    const method = message.method as string;
    if (message.id === null) {
      openNull.push(method);
      return undefined;
    }
    const n = ++standIns;
    const standIn = typeof message.id === "string" ? `#${n}` : Number.isInteger(message.id) ? n : n + 0.5;
    const entry = { id, method, key: idKey(message.id) };
    open.set(standIn, entry);
    message.id = standIn;
    return entry;
  };

  // `$/cancel_request` names the editor's id; the SDK knows the request by its stand-in.
  const translateCancel = (message: Record<string, unknown>) => {
    if (message.method !== "$/cancel_request" || !isRecord(message.params)) return;
    const key = idKey(message.params.requestId);
    let found: string | number | undefined;
    for (const [standIn, entry] of open) if (entry.key === key) found = standIn;
    if (found !== undefined) message.params = { ...message.params, requestId: found };
  };

  // Requests the early handshake answered, in the order they were read. An editor answered early
  // sends its next request at once, but the SDK must have run each early request's own handler
  // first (initialize records the client's capabilities, session/new builds the session the editor
  // was promised): later messages wait here until the SDK's (dropped) answer to it is sent.
  const earlyAnswers = [...(options.preface?.answered ?? [])];
  let earlyDelivered = false;
  let heldBack: Array<{ message: acp.AnyMessage; entry?: OpenRequest }> = [];
  const enqueue = (message: acp.AnyMessage, entry?: OpenRequest) => {
    const early = earlyAnswers[0];
    if (!early || ended) return controller.enqueue(message);
    if (!earlyDelivered && entry?.method === early.method && entry.id === JSON.stringify(early.id)) {
      earlyDelivered = true;
      entry.early = early;
      return controller.enqueue(message);
    }
    heldBack.push({ message, entry });
  };
  const send = (message: unknown): Promise<void> => {
    const record = message as Record<string, unknown>;
    if (!isRecord(record) || "method" in record || !("id" in record)) {
      if (isRecord(record) && "method" in record && "id" in record) awaitingAnswer.add(record.id);
      return write(message, encodeMessage(message));
    }
    // An answer to one of the editor's requests.
    const standIn = record.id as string | number | null;
    const entry = standIn === null ? undefined : open.get(standIn);
    if (standIn !== null && entry) open.delete(standIn);
    else if (standIn === null && openNull.length > 0) openNull.shift();
    // Answers to requests that close() already failed are dropped: each request is answered once.
    else if (ended) return Promise.resolve();
    wakeIfSettled();
    const encoded = encodeMessage(message, entry?.id);
    const early = entry?.early;
    if (early) {
      // The early handshake already sent this answer; the SDK's must be the same bytes.
      if (!encoded.ok || encoded.line !== early.line)
        logger.error(
          `${early.method} was answered early with ${early.line.trim()} but the SDK answers ${encoded.ok ? encoded.line.trim() : encoded.reason}`,
        );
      earlyAnswers.shift();
      earlyDelivered = false;
      const held = heldBack;
      heldBack = [];
      for (const { message, entry } of held) enqueue(message, entry);
      return Promise.resolve();
    }
    return write(message, encoded);
  };
  const write = (message: unknown, encoded: Encoded): Promise<void> => {
    if (encoded.ok) return sink.write(encoded.line);
    logger.error(encoded.reason);
    if (encoded.answer) return sink.write(encoded.answer);
    // One of our own requests that cannot be sent: fail it locally so its caller does not wait forever.
    const record = message as Record<string, unknown>;
    if (isRecord(record) && "method" in record && "id" in record && !ended) {
      awaitingAnswer.delete(record.id);
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
      else if (inbound.kind === "reply") void sink.write(responseLine(inbound.id, { error: inbound.error }));
      else if (inbound.kind === "request") {
        const entry = register(inbound.message, inbound.id);
        enqueue(inbound.message as acp.AnyMessage, entry);
      } else if (!("method" in inbound.message) && !awaitingAnswer.delete(inbound.message.id)) {
        logger.debug(`ignored input: an answer to request ${JSON.stringify(inbound.message.id)}, which is not open`);
      } else {
        translateCancel(inbound.message);
        enqueue(inbound.message as acp.AnyMessage);
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
    // A turn that did not wind down in time still ends the way the editor expects: cancelled.
    const outcome = (method: string) =>
      method === "session/prompt"
        ? { result: { stopReason: "cancelled" } }
        : { error: { code: -32603, message: `Internal error: ${reason}` } };
    for (const { id, method, early } of open.values()) {
      if (early) continue; // answered by the early handshake
      void sink.write(responseLine(id, outcome(method)));
    }
    for (const method of openNull) void sink.write(responseLine("null", outcome(method)));
    open.clear();
    openNull.length = 0;
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
    inflight,
    settled(timeoutMs) {
      if (inflight() === 0 || ended) return Promise.resolve(inflight() === 0);
      return new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          waiters.delete(wake);
          resolve(inflight() === 0);
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
