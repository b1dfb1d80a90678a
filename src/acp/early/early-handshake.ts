import { randomUUID } from "node:crypto";
import type { Readable, Writable } from "node:stream";
import { buildInitializeResponse } from "../capabilities.js";
import { plainSessionNewParams, type EarlySessionParams } from "./early-params.js";
import { classifyLine } from "../wire/inbound.js";
import { createLineSplitter, OVERSIZE_HEAD_BYTES } from "../wire/line-splitter.js";

// Answers the editor's first `initialize`, and the `session/new` that follows it, before the ACP SDK
// is loaded. Importing the SDK builds hundreds of zod schemas, which is most of a cold start; the
// answer to a plain `initialize` does not depend on any of it, and a plain `session/new` needs only
// the config (early-session.ts). Only a request the SDK path would certainly answer the same way is
// answered here; each line is then still handed to the SDK, whose handlers do their work as usual
// (record the client's capabilities; build the session under the id given here), and the transport
// drops their identical second answers, holding later requests back until they are sent.

/** A request answered early; its SDK answer must not be sent again. */
export type EarlyAnswer = {
  id: string | number;
  method: "initialize" | "session/new";
  line: string;
  /** session/new: the id the editor was given, which the SDK path's session must take. */
  sessionId?: string;
};

/** What the transport gets at handover: every byte read so far, and the requests answered early. */
export type EarlyPreface = {
  chunks: Buffer[];
  answered: EarlyAnswer[];
  /** stdin ended before the handover. */
  ended: boolean;
};

/**
 * No configurable transport limit is below these, so a line within them passes any of them. A longer
 * session/new (MCP servers with long arguments) is checked against the configured limit instead.
 */
const MAX_EARLY_LINE_BYTES = 1024;
const EARLY_LIMITS = { maxMessageBytes: OVERSIZE_HEAD_BYTES, maxDepth: 7, maxValues: 1000 };

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * The answer line for `bytes` when it is an `initialize` the SDK path answers with exactly this
 * line, else undefined (and the SDK decides). The SDK's schema for initialize params is lenient
 * (malformed capabilities fall back to defaults) except for the protocol version; our handler reads
 * only `auth.terminal` and `_meta["terminal-auth"]`, compared with `=== true`, which gives the same
 * result on the raw and on the parsed params. Versions other than 1 go through the SDK's router.
 */
export function acceptEarlyInitialize(bytes: Buffer, version: string): EarlyAnswer | undefined {
  if (bytes.length > MAX_EARLY_LINE_BYTES) return undefined;
  const request = plainRequest(bytes, "initialize");
  if (!request || !isPlainObject(request.params) || request.params.protocolVersion !== 1) return undefined;
  const { id, params } = request;
  const capabilities = isPlainObject(params.clientCapabilities) ? params.clientCapabilities : {};
  const result = buildInitializeResponse({ version, clientCapabilities: capabilities });
  return { id, method: "initialize", line: answerLine(id, result) };
}

const answerLine = (id: string | number, result: unknown) => `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n`;

/**
 * A JSON-RPC request for `method` within the early limits (the transport's own checks: size, depth,
 * UTF-8, envelope), with an id the SDK echoes as is, else undefined.
 */
function plainRequest(bytes: Buffer, method: string): { id: string | number; params: unknown } | undefined {
  const inbound = classifyLine({ kind: "line", bytes }, EARLY_LIMITS);
  if (inbound.kind !== "request" || inbound.message.method !== method) return undefined;
  const { id, params } = inbound.message;
  if (!(typeof id === "string" && id.length <= 128) && !(typeof id === "number" && Number.isSafeInteger(id)))
    return undefined;
  // The answer below writes the parsed id; it must be the text the editor wrote (no escapes, no 1.0).
  if (JSON.stringify(id) !== inbound.id) return undefined;
  return { id, params };
}

/** Answers a plain session/new (the SDK path's result under `sessionId`), or declines with undefined. */
export type EarlySessionNew = (
  params: EarlySessionParams,
  sessionId: string,
  lineBytes: number,
) => Promise<Record<string, unknown> | undefined>;

export type EarlyHandshakeOptions = {
  input: Readable;
  output: Writable;
  version: string;
  /** Without it only initialize is answered early. */
  sessionNew?: EarlySessionNew;
  /** Called once initialize is answered: a moment to prepare session/new while the editor reads it. */
  afterInitialize?: () => void;
};

/**
 * Starts reading stdin at once. `settled` resolves when nothing more will be answered early: a line
 * was declined (the SDK must answer it), session/new was answered (a prompt is coming: load the SDK
 * while the editor shows the new session), or stdin ended. An editor that only initializes (to list
 * auth methods or models, or to keep an agent ready before a thread is opened) and then waits keeps
 * a process that has not loaded the SDK: ~23 MB less RSS, paid back (~70 ms) by its next request.
 * `handover()` then stops (leaving stdin paused) and returns what was read, for the transport to
 * replay before it reads on.
 */
export function startEarlyHandshake({ input, output, version, sessionNew, afterInitialize }: EarlyHandshakeOptions) {
  const chunks: Buffer[] = [];
  const splitter = createLineSplitter(OVERSIZE_HEAD_BYTES);
  const answered: EarlyAnswer[] = [];
  let ended = false;
  let done = false;
  let busy = false; // a session/new is being answered
  let markSettled!: () => void;
  const settled = new Promise<void>((resolve) => (markSettled = resolve));
  const settle = () => {
    done = true;
    markSettled();
  };
  const write = (answer: EarlyAnswer) => {
    // An editor gone by now must not crash us with an unhandled EPIPE before serve() listens for it;
    // its closed stdin ends the agent as usual.
    if (answered.length === 0) output.on("error", () => undefined);
    answered.push(answer);
    output.write(answer.line);
  };

  const answerSessionNew = async (bytes: Buffer) => {
    const request = plainRequest(bytes, "session/new");
    const params = request && plainSessionNewParams(request.params);
    if (!request || !params || !sessionNew) return;
    const sessionId = randomUUID();
    const result = await sessionNew(params, sessionId, bytes.length).catch(() => undefined);
    if (result) write({ id: request.id, method: "session/new", line: answerLine(request.id, result), sessionId });
  };

  const onLine = (bytes: Buffer) => {
    if (answered.length === 0) {
      const answer = acceptEarlyInitialize(bytes, version);
      if (!answer) return settle();
      write(answer);
      if (!sessionNew) return settle();
      return afterInitialize?.();
    }
    busy = true;
    void answerSessionNew(bytes).finally(settle);
  };
  const onData = (chunk: Buffer | string) => {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    chunks.push(buffer);
    if (done || busy) return; // kept for the handover, not looked at here
    for (const line of splitter.push(buffer)) {
      if (done || busy) return;
      if (line.kind !== "line") return settle();
      onLine(line.bytes);
    }
  };
  const onEnd = () => {
    ended = true;
    if (!busy) settle();
  };
  input.on("data", onData);
  input.on("end", onEnd);
  return {
    settled,
    handover(): EarlyPreface {
      settle();
      input.pause();
      input.off("data", onData);
      input.off("end", onEnd);
      return { chunks, answered, ended };
    },
  };
}
