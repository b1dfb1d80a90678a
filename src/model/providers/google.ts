import { randomUUID } from "node:crypto";
import { errorMessage } from "../../util/errors.js";
import { silentLogger } from "../../util/logger.js";
import type { CommonClientOptions } from "../wire/client-options.js";
import { ModelApiError, parseStreamJson } from "../errors.js";
import { streamAttempts } from "../wire/flatten.js";
import { geminiLimitFromBody } from "../limits.js";
import { joinUrl, streamSse, transportOf } from "../wire/http.js";
import { toGeminiContents, toGeminiTools } from "./google-messages.js";
import { isRetryableStatus } from "../wire/retry.js";
import type { AssistantContent, ModelClient, ModelEvent, ModelRequest, ModelStopReason, Usage } from "../types.js";

// Gemini over our own fetch + SSE parser: `streamGenerateContent?alt=sse` is plain SSE of JSON
// chunks, so the SDK would add startup weight and nothing we need. Vertex AI serves the same format
// under a project/location path with an OAuth bearer token.

export type GoogleAuth =
  | { kind: "api-key"; apiKey: string }
  | {
      kind: "vertex";
      project: string;
      location: string;
      /** Authorization headers per request (the library caches and refreshes the token). */
      getHeaders: () => Promise<Record<string, string>>;
      /** Which credential was found, for error messages. */
      describe: string;
    };

export type GoogleClientOptions = CommonClientOptions & {
  auth: GoogleAuth;
  /** Gemini API root (default https://generativelanguage.googleapis.com), or the Vertex endpoint root. */
  baseUrl?: string;
  maxOutputTokens?: number;
  /** Ask for thought summaries (thinking models). Default false. */
  reasoning?: boolean;
};

export function createGoogleClient(options: GoogleClientOptions): ModelClient {
  const { auth } = options;
  const provider = auth.kind === "api-key" ? "google" : "vertex";
  const label = auth.kind === "api-key" ? "Gemini API" : "Vertex AI";
  const url = geminiStreamUrl(options.model, auth, options.baseUrl);
  const transport = transportOf(options);
  const logger = options.logger ?? silentLogger;
  const authHint =
    auth.kind === "api-key"
      ? "check GOOGLE_API_KEY / GEMINI_API_KEY or the key stored by deep-acp login"
      : `check ${auth.describe}; run \`gcloud auth application-default login\` if it expired`;

  const buildBody = (request: ModelRequest): Record<string, unknown> => {
    const body: Record<string, unknown> = { contents: toGeminiContents(request.messages) };
    if (request.system) body.systemInstruction = { parts: [{ text: request.system }] };
    const tools = toGeminiTools(request.tools);
    if (tools.length > 0) body.tools = tools;
    const generationConfig: Record<string, unknown> = {};
    const maxTokens = request.maxOutputTokens ?? options.maxOutputTokens;
    if (maxTokens !== undefined) generationConfig.maxOutputTokens = maxTokens;
    if (options.reasoning) generationConfig.thinkingConfig = { includeThoughts: true };
    if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
    return body;
  };

  async function* attempt(body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ModelEvent[]> {
    let headers: Record<string, string>;
    if (auth.kind === "api-key") headers = { "x-goog-api-key": auth.apiKey };
    else {
      try {
        headers = await auth.getHeaders();
      } catch (error) {
        throw new ModelApiError(`Could not get a Google access token from ${auth.describe}: ${errorMessage(error)}`, {
          retryable: false,
        });
      }
    }
    const assembler = createGeminiAssembler(label);
    const limits = { fromErrorBody: geminiLimitFromBody };
    for await (const batch of streamSse({ ...transport, url, headers, body, signal, label, authHint, limits })) {
      const out: ModelEvent[] = [];
      for (const sse of batch) out.push(...assembler.push(sse.data));
      if (out.length > 0) yield out;
    }
    yield assembler.end();
  }

  return {
    id: `${provider}:${options.model}`,
    provider,
    model: options.model,
    contextWindow: options.contextWindow,
    supportsImages: options.supportsImages,
    stream: (request) =>
      streamAttempts(
        label,
        () => buildBody(request),
        (body) => attempt(body, request.signal),
        { signal: request.signal, retry: options.retry, logger },
      ),
  };
}

export function geminiStreamUrl(model: string, auth: GoogleAuth, baseUrl?: string): string {
  const method = `${encodeURIComponent(model)}:streamGenerateContent?alt=sse`;
  if (auth.kind === "api-key") {
    const base = (baseUrl ?? "https://generativelanguage.googleapis.com").replace(/\/+$/, "");
    // Accept a root, or a root that already names the API version.
    return joinUrl(base, /\/v1(beta)?$/.test(base) ? `models/${method}` : `v1beta/models/${method}`);
  }
  const host =
    auth.location === "global"
      ? "https://aiplatform.googleapis.com"
      : `https://${auth.location}-aiplatform.googleapis.com`;
  const base = (baseUrl ?? host).replace(/\/+$/, "");
  return joinUrl(
    base,
    `v1/projects/${encodeURIComponent(auth.project)}/locations/${encodeURIComponent(auth.location)}/publishers/google/models/${method}`,
  );
}

// Wire chunks are read defensively field by field.
type Wire = Record<string, any>;

/** Turns one attempt's GenerateContentResponse chunks into ModelEvents; throws ModelApiError on stream errors. */
export function createGeminiAssembler(label: string) {
  const content: AssistantContent[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let finishReason: string | undefined;
  let blocked: string | undefined;

  const appendText = (type: "text" | "thinking", text: string) => {
    const last = content[content.length - 1];
    if (last && last.type === type) last.text += text;
    else content.push({ type, text });
  };

  const push = (data: string): ModelEvent[] => {
    const chunk = parseStreamJson<Wire>(label, data);
    if (chunk.error) throw streamError(label, chunk.error);
    const events: ModelEvent[] = [];
    const candidate: Wire | undefined = Array.isArray(chunk.candidates) ? chunk.candidates[0] : undefined;
    for (const part of (candidate?.content?.parts ?? []) as Wire[]) {
      if (typeof part.text === "string" && part.text !== "") {
        const type = part.thought === true ? "thinking" : "text";
        appendText(type, part.text);
        events.push({ type: type === "thinking" ? "thinking_delta" : "text_delta", text: part.text });
      }
      if (part.functionCall) {
        const id =
          typeof part.functionCall.id === "string" && part.functionCall.id
            ? part.functionCall.id
            : `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
        const name = String(part.functionCall.name ?? "");
        const call: AssistantContent = { type: "tool_call", id, name, input: part.functionCall.args ?? {} };
        if (typeof part.thoughtSignature === "string") call.thoughtSignature = part.thoughtSignature;
        content.push(call);
        events.push({ type: "tool_call_start", id, name }, { type: "tool_call_ready", id, name, input: call.input });
      }
    }
    if (typeof candidate?.finishReason === "string") finishReason = candidate.finishReason;
    if (typeof chunk.promptFeedback?.blockReason === "string") blocked = chunk.promptFeedback.blockReason;
    if (chunk.usageMetadata) {
      usage = toUsage(chunk.usageMetadata);
      events.push({ type: "usage", usage });
    }
    return events;
  };

  return {
    push,
    /** The body ended: a finished answer, or a stream cut off before its finish reason. */
    end(): ModelEvent[] {
      if (finishReason === undefined && blocked === undefined) {
        throw new ModelApiError(`${label} stream ended before the response was complete`, { retryable: true });
      }
      const hasTools = content.some((part) => part.type === "tool_call");
      const stopReason: ModelStopReason = blocked ? "refusal" : mapFinishReason(finishReason!, hasTools);
      if (finishReason === "MALFORMED_FUNCTION_CALL") {
        throw new ModelApiError(`${label} produced a malformed function call`, { retryable: true });
      }
      return [{ type: "done", stopReason, message: { role: "assistant", content }, usage }];
    },
  };
}

function mapFinishReason(reason: string, hasTools: boolean): ModelStopReason {
  switch (reason) {
    case "MAX_TOKENS":
      return "max_tokens";
    case "SAFETY":
    case "RECITATION":
    case "BLOCKLIST":
    case "PROHIBITED_CONTENT":
    case "SPII":
    case "IMAGE_SAFETY":
      return "refusal";
    default:
      // Gemini says STOP for answers that are function calls too.
      return hasTools ? "tool_use" : "end_turn";
  }
}

/** Gemini counts cached tokens inside promptTokenCount and bills thoughts as output; we report them apart. */
function toUsage(wire: Wire): Usage {
  const prompt = typeof wire.promptTokenCount === "number" ? wire.promptTokenCount : 0;
  const cached = typeof wire.cachedContentTokenCount === "number" ? wire.cachedContentTokenCount : 0;
  const output =
    (typeof wire.candidatesTokenCount === "number" ? wire.candidatesTokenCount : 0) +
    (typeof wire.thoughtsTokenCount === "number" ? wire.thoughtsTokenCount : 0);
  const usage: Usage = { inputTokens: prompt - cached, outputTokens: output };
  if (cached > 0) usage.cacheReadTokens = cached;
  return usage;
}

function streamError(label: string, error: Wire): ModelApiError {
  const status = typeof error.code === "number" ? error.code : undefined;
  return new ModelApiError(
    `${label} stream error${error.status ? ` (${error.status})` : ""}: ${error.message ?? "no message"}`,
    {
      retryable: status === undefined ? error.status === "UNAVAILABLE" : isRetryableStatus(status),
      ...(status === undefined ? {} : { status }),
    },
  );
}
