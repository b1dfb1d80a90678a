import { createServer, type IncomingMessage, type RequestListener, type ServerResponse } from "node:http";
import { createServer as createTlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { recordRequest } from "./record.js";
import { errorBody, renderAnthropic, renderOpenAi } from "./render.js";
import { moreErrorBody, renderBedrock, renderGemini, renderResponses } from "./render-more.js";
import type { FakeApi, FakeTurn, FakeTurnHandler, RecordedRequest } from "./types.js";

export type FakeModelServerOptions = {
  /** Turns answered in order before the handler is asked. Default none. */
  turns?: FakeTurn[];
  /** Answers requests once the queue is empty. Default: a fixed text turn. */
  handler?: FakeTurnHandler;
  /** Serve HTTPS with this key and certificate (PEM) instead of HTTP. */
  tls?: { key: Buffer; cert: Buffer };
};

export type FakeModelServer = {
  /** `http://127.0.0.1:PORT`: the root for Gemini (GOOGLE_BASE_URL), Azure and Bedrock endpoints. */
  origin: string;
  /** `http://127.0.0.1:PORT`: give to the Anthropic client (it appends /v1/messages). */
  anthropicBaseUrl: string;
  /** `http://127.0.0.1:PORT/v1`: give to an OpenAI-style client (it appends /chat/completions). */
  openaiBaseUrl: string;
  requests: RecordedRequest[];
  enqueue(...turns: FakeTurn[]): void;
  setHandler(handler: FakeTurnHandler | undefined): void;
  /** Forgets queued turns and recorded requests. */
  reset(): void;
  /** Chat Completions answers carry usage on their finish chunk even unasked (Mistral's behaviour). Default off. */
  setChatUsageOnFinish(on: boolean): void;
  /** Resolves once at least `count` requests have arrived. */
  waitForRequests(count: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
};

export const NO_SCRIPT_TEXT = "(fake model: no scripted turn)";
const BATCH_BYTES = 64 * 1024;

export function textTurn(text: string, extra: Omit<FakeTurn, "parts"> = {}): FakeTurn {
  return { parts: [{ type: "text", text }], ...extra };
}

export function toolTurn(
  name: string,
  input: unknown,
  extra: Omit<FakeTurn, "parts"> & { id?: string } = {},
): FakeTurn {
  const { id, ...rest } = extra;
  return { parts: [{ type: "tool_call", name, input, ...(id !== undefined && { id }) }], ...rest };
}

export async function createFakeModelServer(options: FakeModelServerOptions = {}): Promise<FakeModelServer> {
  const queue: FakeTurn[] = [...(options.turns ?? [])];
  let handler = options.handler;
  const requests: RecordedRequest[] = [];
  const waiters: Array<{ count: number; resolve: (r: RecordedRequest[]) => void }> = [];
  let sequence = 0;
  let usageOnFinish = false;

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    const [path, query = ""] = (req.url ?? "/").split("?") as [string, string?];
    if (req.method === "GET" && (path === "/v1/models" || path === "/models" || path === "/v1beta/models"))
      return listModels(req, res);
    const api = apiOf(path);
    if (req.method !== "POST" || !api)
      return sendJson(res, 404, { error: { type: "not_found_error", message: `no route ${req.method} ${path}` } });
    const raw = await readBody(req);
    let body: Record<string, any>;
    try {
      body = JSON.parse(raw) as Record<string, any>;
    } catch {
      return sendApiError(res, api, 400);
    }
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(", ") : String(v)]),
    );
    const recorded = recordRequest(api, path, query, headers, body);
    requests.push(recorded);
    for (const waiter of waiters.filter((w) => requests.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(requests);
    }
    const turn = queue.shift() ?? (handler ? await handler(recorded) : textTurn(NO_SCRIPT_TEXT));
    sequence += 1;
    const credentialError = rejectCredential(headers);
    if (credentialError) return sendApiError(res, api, 401, credentialError);
    if (turn.httpError) {
      const { status, body: errBody, headers: extra } = turn.httpError;
      return errBody === undefined
        ? sendApiError(res, api, status, undefined, extra)
        : sendJson(res, status, errBody, extra);
    }
    const contentType = api === "bedrock" ? "application/vnd.amazon.eventstream" : "text/event-stream";
    res.writeHead(200, {
      "content-type": contentType,
      "cache-control": "no-cache",
      connection: "keep-alive",
      ...turn.headers,
    });
    if (turn.raw !== undefined) return void res.end(turn.raw);
    const model = String(
      body.model ??
        decodeURIComponent(/models\/([^/:]+)/.exec(path)?.[1] ?? /\/model\/([^/]+)/.exec(path)?.[1] ?? "fake"),
    );
    const ctx = {
      model,
      requestBytes: raw.length,
      includeUsage: body.stream_options?.include_usage === true,
      sequence,
      usageOnFinish,
    };
    const rendered: { parts: Array<string | Uint8Array>; tail: Array<string | Uint8Array> } =
      api === "anthropic"
        ? renderAnthropic(turn, ctx)
        : api === "openai"
          ? renderOpenAi(turn, ctx)
          : api === "gemini"
            ? renderGemini(turn, ctx)
            : api === "responses"
              ? renderResponses(turn, ctx)
              : renderBedrock(turn, ctx);
    const frames = turn.hangAfterParts ? rendered.parts : [...rendered.parts, ...rendered.tail];
    await writeFrames(res, frames, turn.chunkDelayMs ?? 0);
    if (turn.hangAfterParts) await closed(res);
    else if (!res.destroyed) res.end();
  };

  const listener: RequestListener = (req, res) => {
    res.on("error", () => undefined);
    route(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { type: "api_error", message: String(error) } });
      else res.destroy();
    });
  };
  const server = options.tls ? createTlsServer(options.tls, listener) : createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `${options.tls ? "https" : "http"}://127.0.0.1:${port}`;

  return {
    origin,
    anthropicBaseUrl: origin,
    openaiBaseUrl: `${origin}/v1`,
    requests,
    enqueue: (...turns) => void queue.push(...turns),
    setHandler: (next) => void (handler = next),
    setChatUsageOnFinish: (on) => void (usageOnFinish = on),
    reset: () => {
      queue.length = 0;
      requests.length = 0;
    },
    waitForRequests: (count) =>
      requests.length >= count ? Promise.resolve(requests) : new Promise((resolve) => waiters.push({ count, resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The model list `deep-acp login` checks a key with; the key "bad-key" is rejected. */
function listModels(req: IncomingMessage, res: ServerResponse): void {
  const key =
    req.headers["x-api-key"] ?? req.headers["x-goog-api-key"] ?? req.headers.authorization?.replace(/^Bearer /, "");
  if (key === "bad-key")
    return sendJson(res, 401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
  sendJson(res, 200, {
    data: [
      { id: "fake-model-1", type: "model" },
      { id: "fake-model-2", type: "model" },
    ],
    has_more: false,
  });
}

/** Which wire format a POST path speaks (Azure's deployment paths are Chat Completions). */
export function apiOf(path: string): FakeApi | undefined {
  if (path === "/v1/messages") return "anthropic";
  if (
    path === "/v1/chat/completions" ||
    path === "/chat/completions" ||
    /^\/openai\/(deployments\/[^/]+|v1)\/chat\/completions$/.test(path)
  )
    return "openai";
  if (path === "/v1/responses" || path === "/responses") return "responses";
  if (/\/models\/[^/]+:streamGenerateContent$/.test(path)) return "gemini";
  if (/^\/model\/[^/]+\/converse-stream$/.test(path)) return "bedrock";
  return undefined;
}

/**
 * The fake's credential checks, one rule for every API: a key, token or AWS access key id of
 * "bad-key" is rejected as wrong, and "expired-key" as expired.
 */
function rejectCredential(headers: Record<string, string>): string | undefined {
  const presented = [
    headers["x-api-key"],
    headers["api-key"],
    headers["x-goog-api-key"],
    headers.authorization?.replace(/^Bearer /, ""),
    /Credential=([^/]+)\//.exec(headers.authorization ?? "")?.[1],
  ];
  if (presented.includes("bad-key")) return "invalid api key";
  if (presented.includes("expired-key")) return "the access token has expired";
  return undefined;
}

function sendApiError(
  res: ServerResponse,
  api: FakeApi,
  status: number,
  message?: string,
  extra: Record<string, string> = {},
): void {
  if (api === "anthropic" || api === "openai") {
    const body = errorBody(api, status) as Record<string, any>;
    if (message) body.error.message = message;
    return sendJson(res, status, body, extra);
  }
  const { body, headers } = moreErrorBody(api, status);
  const wire = body as Record<string, any>;
  if (message) {
    if (wire.error) wire.error.message = message;
    else wire.message = message;
  }
  const bedrockType: Record<string, string> =
    api === "bedrock" && status === 401
      ? { "x-amzn-errortype": message?.includes("expired") ? "ExpiredTokenException:" : "UnrecognizedClientException:" }
      : {};
  sendJson(res, api === "bedrock" && status === 401 ? 403 : status, wire, { ...headers, ...bedrockType, ...extra });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(typeof body === "string" ? body : JSON.stringify(body));
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function closed(res: ServerResponse): Promise<void> {
  return res.destroyed || res.closed ? Promise.resolve() : new Promise((resolve) => res.once("close", () => resolve()));
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Writes frames one by one with a delay, or in large batches without one; stops when the client leaves. */
async function writeFrames(res: ServerResponse, frames: Array<string | Uint8Array>, delayMs: number): Promise<void> {
  let batch: Array<string | Uint8Array> = [];
  let size = 0;
  const flush = async () => {
    if (batch.length === 0 || res.destroyed) return;
    const ok = res.write(
      batch.every((f) => typeof f === "string")
        ? batch.join("")
        : Buffer.concat(batch.map((f) => (typeof f === "string" ? Buffer.from(f) : f))),
    );
    batch = [];
    size = 0;
    if (!ok) await drained(res);
  };
  for (const frame of frames) {
    if (res.destroyed) return;
    batch.push(frame);
    size += frame.length;
    if (delayMs > 0) {
      await flush();
      await new Promise((r) => setTimeout(r, delayMs));
    } else if (size >= BATCH_BYTES) {
      await flush();
    }
  }
  await flush();
}
