import type { Readable, Writable } from "node:stream";
import { buildInitializeResponse } from "./capabilities.js";
import { createLineSplitter } from "./line-splitter.js";

// Answers the editor's first `initialize` before the ACP SDK is loaded. Importing the SDK builds
// hundreds of zod schemas, which is most of a cold start; the answer to a plain `initialize` does not
// depend on any of it. Only a request the SDK path would certainly answer the same way is answered
// here (see acceptEarlyInitialize); the line is then still handed to the SDK, whose handler records
// the client's capabilities as usual, and the transport drops its (identical) second answer.

/** What the transport gets at handover: every byte read so far, and the request answered early. */
export type EarlyPreface = {
  chunks: Buffer[];
  /** Set when the first line was answered here; its SDK answer must not be sent again. */
  answered?: { id: string | number; line: string };
  /** stdin ended before the handover. */
  ended: boolean;
};

/** No configurable transport limit is below these, so a line within them passes any of them. */
const MAX_EARLY_LINE_BYTES = 1024;
const MAX_EARLY_DEPTH = 7;
const utf8 = new TextDecoder("utf-8", { fatal: true });

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return deepest + 1;
}

/**
 * The answer line for `bytes` when it is an `initialize` the SDK path answers with exactly this
 * line, else undefined (and the SDK decides). The SDK's schema for initialize params is lenient
 * (malformed capabilities fall back to defaults) except for the protocol version; our handler reads
 * only `auth.terminal` and `_meta["terminal-auth"]`, compared with `=== true`, which gives the same
 * result on the raw and on the parsed params. Versions other than 1 go through the SDK's router.
 */
export function acceptEarlyInitialize(
  bytes: Buffer,
  version: string,
): { id: string | number; line: string } | undefined {
  if (bytes.length > MAX_EARLY_LINE_BYTES) return undefined;
  let message: unknown;
  try {
    message = JSON.parse(utf8.decode(bytes));
  } catch {
    return undefined;
  }
  if (!isPlainObject(message) || depthOf(message) > MAX_EARLY_DEPTH) return undefined;
  const { jsonrpc, id, method, params } = message;
  if (jsonrpc !== "2.0" || method !== "initialize" || !isPlainObject(params) || params.protocolVersion !== 1)
    return undefined;
  if (!(typeof id === "string" && id.length <= 128) && !(typeof id === "number" && Number.isSafeInteger(id)))
    return undefined;
  const capabilities = isPlainObject(params.clientCapabilities) ? params.clientCapabilities : {};
  const result = buildInitializeResponse({ version, clientCapabilities: capabilities });
  return { id, line: `${JSON.stringify({ jsonrpc: "2.0", id, result })}\n` };
}

export type EarlyHandshakeOptions = { input: Readable; output: Writable; version: string };

/**
 * Starts reading stdin at once. `handover()` stops (leaving stdin paused) and returns what was
 * read, for the transport to replay before it reads on.
 */
export function startEarlyHandshake({ input, output, version }: EarlyHandshakeOptions) {
  const chunks: Buffer[] = [];
  const splitter = createLineSplitter(MAX_EARLY_LINE_BYTES);
  let decided = false;
  let ended = false;
  let answered: EarlyPreface["answered"];
  const onData = (chunk: Buffer | string) => {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    chunks.push(buffer);
    if (decided) return;
    const [first] = splitter.push(buffer);
    if (!first) return;
    decided = true;
    if (first.kind !== "line") return;
    answered = acceptEarlyInitialize(first.bytes, version);
    if (!answered) return;
    // An editor gone by now must not crash us with an unhandled EPIPE before serve() listens for it;
    // its closed stdin ends the agent as usual.
    output.on("error", () => undefined);
    output.write(answered.line);
  };
  const onEnd = () => (ended = true);
  input.on("data", onData);
  input.on("end", onEnd);
  return {
    handover(): EarlyPreface {
      input.pause();
      input.off("data", onData);
      input.off("end", onEnd);
      return { chunks, ...(answered ? { answered } : {}), ended };
    },
  };
}
