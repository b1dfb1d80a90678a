import { randomUUID } from "node:crypto";
import { silentLogger, type Logger } from "../../util/logger.js";
import { lookupModel } from "../catalog/catalog.js";
import { ModelApiError, ModelConfigError, parseStreamJson } from "../errors.js";
import { openAiLimits, type QuotaPool, type ResponseHeaders } from "../limits.js";
import { joinUrl, streamSse, transportOf, type FetchLike } from "../wire/http.js";
import { toChatMessages, toChatTools } from "./openai-messages.js";
import { isRetryableStatus, type RetryOptions } from "../wire/retry.js";
import { streamAttempts } from "../wire/flatten.js";
import { parseToolInput } from "../wire/tool-input.js";
import { PROVIDERS } from "../catalog/providers.js";
import type {
  AssistantContent,
  ModelClient,
  ModelEvent,
  ModelRequest,
  ModelStopReason,
  ProviderName,
  Usage,
} from "../types.js";

export type OpenAiChatProvider = Exclude<
  ProviderName,
  "anthropic" | "openai-responses" | "google" | "vertex" | "bedrock"
>;

export type OpenAiChatClientOptions = {
  provider: OpenAiChatProvider;
  model: string;
  /** Sent as `Authorization: Bearer` when given. Default: none. */
  apiKey?: string;
  /** Default "https://api.openai.com/v1" (openai), "http://127.0.0.1:11434/v1" (ollama); required for openai-compatible. */
  baseUrl?: string;
  /**
   * Output cap when the request sets none: `max_completion_tokens` for openai, `max_tokens` otherwise.
   * Default: not sent, so the server's own limit applies (small local context windows reject large caps).
   */
  maxOutputTokens?: number;
  /** Default: catalog value, else 128 000. */
  contextWindow?: number;
  /** Default: catalog value, else true for openai and false for the others. */
  supportsImages?: boolean;
  /** Extra request headers. Default none. */
  headers?: Record<string, string>;
  /** The full endpoint URL, for servers whose path is not `<base>/chat/completions` (Azure). Default: derived from baseUrl. */
  url?: string;
  /** Ask for usage in the last chunk (`stream_options`). Default true; off for servers that reject the field. */
  streamUsage?: boolean;
  /** Appended to 401/403 errors. Default: names the provider's key variable. */
  authHint?: string;
  /** Name of the output cap field. Default `max_completion_tokens` for openai and azure, else `max_tokens`. */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Fail (retryably) when the connection is silent this long. Default 600 000 ms. */
  idleTimeoutMs?: number;
  /** Default: node:http(s) (see node-post.ts). */
  fetch?: FetchLike;
  /** Default: see RetryOptions. */
  retry?: RetryOptions;
  /** Default: silent. */
  logger?: Logger;
};

/** Throws ModelConfigError when an openai-compatible client has no base URL. */
export function createOpenAiChatClient(options: OpenAiChatClientOptions): ModelClient {
  const { provider } = options;
  const base = options.baseUrl ?? PROVIDERS[provider].defaultBaseUrl;
  if (!base && !options.url) {
    throw new ModelConfigError(
      "missing_credentials",
      "openai-compatible needs a base URL: set OPENAI_COMPATIBLE_BASE_URL",
      provider,
    );
  }
  const url = options.url ?? joinUrl(base!, "chat/completions");
  const transport = transportOf(options);
  const label =
    provider === "openai"
      ? "OpenAI API"
      : provider === "openai-compatible"
        ? "OpenAI-compatible server"
        : PROVIDERS[provider].label;
  const keyVars = PROVIDERS[provider].keyVars;
  const authHint =
    options.authHint ??
    (keyVars.length > 0
      ? `check ${keyVars.join(" / ")} or the key stored by deep-acp login`
      : "check the server's API key");
  const maxTokensField =
    options.maxTokensField ?? (provider === "openai" || provider === "azure" ? "max_completion_tokens" : "max_tokens");
  const info = lookupModel(provider, options.model);
  const logger = options.logger ?? silentLogger;
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;

  const buildBody = (request: ModelRequest): Record<string, unknown> => {
    const body: Record<string, unknown> = {
      model: options.model,
      messages: toChatMessages(request.system, request.messages),
      stream: true,
    };
    if (options.streamUsage !== false) body.stream_options = { include_usage: true };
    if (request.tools.length > 0) body.tools = toChatTools(request.tools);
    const maxTokens = request.maxOutputTokens ?? options.maxOutputTokens;
    if (maxTokens !== undefined) body[maxTokensField] = maxTokens;
    return body;
  };

  async function* attempt(body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ModelEvent[]> {
    const assembler = createChatAssembler(label);
    let pool: QuotaPool | undefined;
    const limits = { fromHeaders: (h: ResponseHeaders, now: Date) => openAiLimits(h, label, now) };
    const onLimits = (found: QuotaPool) => void (pool = found);
    for await (const batch of streamSse({
      ...transport,
      url,
      headers,
      body,
      signal,
      label,
      authHint,
      limits,
      onLimits,
    })) {
      const out: ModelEvent[] = pool ? [{ type: "limits", pool }] : [];
      pool = undefined;
      for (const sse of batch) {
        for (const event of assembler.push(sse.data)) out.push(event);
        if (assembler.finished) break;
      }
      if (out.length > 0) yield out;
      if (assembler.finished) return;
    }
    yield [...assembler.end()];
  }

  return {
    id: `${provider}:${options.model}`,
    provider,
    model: options.model,
    contextWindow: options.contextWindow ?? info.contextWindow,
    supportsImages: options.supportsImages ?? info.supportsImages,
    stream: (request) =>
      streamAttempts(
        label,
        () => buildBody(request),
        (body) => attempt(body, request.signal),
        { signal: request.signal, retry: options.retry, logger },
      ),
  };
}

type ToolState = { id: string; name: string; args: string[]; started: boolean; input?: unknown };
// Wire chunks are read defensively field by field.
type Wire = Record<string, any>;

/** Turns one attempt's chunks into ModelEvents; throws ModelApiError on stream errors. */
export function createChatAssembler(label: string) {
  let text = "";
  let thinking = "";
  const tools: ToolState[] = [];
  let finishReason: string | null = null;
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let finished = false;

  const done = (): ModelEvent => {
    finished = true;
    const content: AssistantContent[] = [];
    if (thinking) content.push({ type: "thinking", text: thinking });
    if (text) content.push({ type: "text", text });
    for (const tool of tools.filter(Boolean)) {
      content.push({
        type: "tool_call",
        id: tool.id,
        name: tool.name,
        input: tool.input ?? parseToolInput(tool.args.join("")),
      });
    }
    const stopReason = mapFinishReason(finishReason, tools.some(Boolean));
    return { type: "done", stopReason, message: { role: "assistant", content }, usage };
  };

  const push = (data: string): ModelEvent[] => {
    if (data.trim() === "[DONE]") return [done()];
    const chunk = parseStreamJson<Wire>(label, data);
    if (chunk.error) throw streamError(label, chunk.error);
    const events: ModelEvent[] = [];
    const choice = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
    const delta: Wire = choice?.delta ?? {};
    const reasoning = delta.reasoning_content ?? delta.reasoning;
    if (typeof reasoning === "string" && reasoning !== "") {
      thinking += reasoning;
      events.push({ type: "thinking_delta", text: reasoning });
    }
    if (typeof delta.content === "string" && delta.content !== "") {
      text += delta.content;
      events.push({ type: "text_delta", text: delta.content });
    }
    if (Array.isArray(delta.tool_calls)) {
      delta.tool_calls.forEach((fragment: Wire, position: number) =>
        events.push(...applyToolFragment(fragment, position)),
      );
    }
    if (choice?.finish_reason) {
      finishReason = choice.finish_reason;
      complete(tools.length, events);
    }
    // Groq reports usage under x_groq on its last chunk.
    const wireUsage = chunk.usage ?? chunk.x_groq?.usage;
    if (wireUsage) {
      usage = toUsage(wireUsage);
      events.push({ type: "usage", usage });
    }
    return events;
  };

  const applyToolFragment = (fragment: Wire, position: number): ModelEvent[] => {
    // Some servers omit `index` and send each call whole; their position in the array stands in.
    const index = typeof fragment.index === "number" ? fragment.index : position;
    const tool = (tools[index] ??= { id: "", name: "", args: [], started: false });
    if (typeof fragment.id === "string" && fragment.id !== "" && tool.id === "") tool.id = fragment.id;
    const fn: Wire = fragment.function ?? {};
    if (typeof fn.name === "string" && fn.name !== "" && tool.name === "") tool.name = fn.name;
    if (typeof fn.arguments === "string") tool.args.push(fn.arguments);
    if (tool.started || tool.name === "") return [];
    tool.started = true;
    if (tool.id === "") tool.id = `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
    // Calls stream one after another: a new one means the ones before it have all their arguments.
    const events: ModelEvent[] = [];
    complete(index, events);
    events.push({ type: "tool_call_start", id: tool.id, name: tool.name });
    return events;
  };

  /** Reports the calls before `upto` whose arguments are complete and not yet reported. */
  const complete = (upto: number, events: ModelEvent[]): void => {
    for (let i = 0; i < upto; i++) {
      const tool = tools[i];
      if (!tool?.started || tool.input !== undefined) continue;
      tool.input = parseToolInput(tool.args.join(""));
      events.push({ type: "tool_call_ready", id: tool.id, name: tool.name, input: tool.input });
    }
  };

  return {
    push,
    get finished() {
      return finished;
    },
    /** The body ended without `[DONE]`: accept it if the model had finished, else it was cut off. */
    end(): ModelEvent[] {
      if (finishReason !== null) return [done()];
      throw new ModelApiError(`${label} stream ended before the response was complete`, { retryable: true });
    },
  };
}

function mapFinishReason(reason: string | null, hasTools: boolean): ModelStopReason {
  switch (reason) {
    case "length":
      return "max_tokens";
    case "content_filter":
      return "refusal";
    case "tool_calls":
    case "function_call":
      return "tool_use";
    default:
      // Several local servers report "stop" even when the answer is tool calls.
      return hasTools ? "tool_use" : "end_turn";
  }
}

/** Chat Completions counts cached prompt tokens inside prompt_tokens; we report them apart, as Anthropic does. */
function toUsage(wire: Wire): Usage {
  const prompt = typeof wire.prompt_tokens === "number" ? wire.prompt_tokens : 0;
  const cached = wire.prompt_tokens_details?.cached_tokens;
  const usage: Usage = {
    inputTokens: typeof cached === "number" ? prompt - cached : prompt,
    outputTokens: typeof wire.completion_tokens === "number" ? wire.completion_tokens : 0,
  };
  if (typeof cached === "number" && cached > 0) usage.cacheReadTokens = cached;
  return usage;
}

function streamError(label: string, error: Wire | string): ModelApiError {
  const detail: Wire = typeof error === "string" ? { message: error } : error;
  const code = typeof detail.code === "number" ? detail.code : Number(detail.status);
  const status = Number.isInteger(code) && code >= 400 ? code : undefined;
  const type = detail.type ?? (typeof detail.code === "string" ? detail.code : undefined);
  const retryable =
    status !== undefined ? isRetryableStatus(status) : type === "server_error" || type === "rate_limit_exceeded";
  return new ModelApiError(`${label} stream error${type ? ` (${type})` : ""}: ${detail.message ?? "no message"}`, {
    retryable,
    ...(status === undefined ? {} : { status }),
  });
}
