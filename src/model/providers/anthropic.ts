import { silentLogger, type Logger } from "../../util/logger.js";
import {
  addCacheBreakpoints,
  toAnthropicMessages,
  toAnthropicTools,
  type AnthropicBlock,
} from "./anthropic-messages.js";
import { DEFAULT_MAX_OUTPUT_TOKENS, lookupModel } from "../catalog/catalog.js";
import { ModelApiError, parseStreamJson } from "../errors.js";
import { joinUrl, streamSse, transportOf, type FetchLike } from "../wire/http.js";
import { anthropicLimits, type QuotaPool } from "../limits.js";
import { type RetryOptions } from "../wire/retry.js";
import { streamAttempts } from "../wire/flatten.js";
import { parseToolInput } from "../wire/tool-input.js";
import type { AssistantContent, ModelClient, ModelEvent, ModelRequest, ModelStopReason, Usage } from "../types.js";

export type AnthropicClientOptions = {
  model: string;
  apiKey: string;
  /** Default "https://api.anthropic.com". A trailing "/v1" or "/" is accepted. */
  baseUrl?: string;
  /** `max_tokens` when the request sets none. Default: min(16384, the model's maximum). */
  maxOutputTokens?: number;
  /** When set, extended thinking is enabled with this budget (clamped below max_tokens). Default: off. */
  thinkingBudgetTokens?: number;
  /** Default: catalog value, else 200 000. */
  contextWindow?: number;
  /** Default: catalog value, else true. */
  supportsImages?: boolean;
  /** Mark cache breakpoints on the system prompt and last message. Default true. */
  promptCaching?: boolean;
  /** Extra request headers, e.g. `anthropic-beta`. Default none. */
  headers?: Record<string, string>;
  /** Fail (retryably) when the connection is silent this long. Default 600 000 ms. */
  idleTimeoutMs?: number;
  /** Default: node:http(s) (see node-post.ts). */
  fetch?: FetchLike;
  /** Default: see RetryOptions. */
  retry?: RetryOptions;
  /** Default: silent. */
  logger?: Logger;
};

const LABEL = "Anthropic API";
const MIN_THINKING_BUDGET = 1024;

export function createAnthropicClient(options: AnthropicClientOptions): ModelClient {
  const info = lookupModel("anthropic", options.model);
  const base = (options.baseUrl ?? "https://api.anthropic.com").replace(/\/+$/, "");
  const url = joinUrl(base, base.endsWith("/v1") ? "messages" : "v1/messages");
  // No key of ours when the editor's gateway authenticates with its own headers (providers/set).
  const headers = {
    ...(options.apiKey ? { "x-api-key": options.apiKey } : {}),
    "anthropic-version": "2023-06-01",
    ...options.headers,
  };
  const transport = transportOf(options);
  const logger = options.logger ?? silentLogger;
  const defaultMaxTokens = options.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens);

  const buildBody = (request: ModelRequest): Record<string, unknown> => {
    const system: AnthropicBlock[] = request.system ? [{ type: "text", text: request.system }] : [];
    const messages = toAnthropicMessages(request.messages);
    if (options.promptCaching !== false) addCacheBreakpoints(system, messages);
    const maxTokens = request.maxOutputTokens ?? defaultMaxTokens;
    const body: Record<string, unknown> = { model: options.model, max_tokens: maxTokens, stream: true, messages };
    if (system.length > 0) body.system = system;
    if (request.tools.length > 0) body.tools = toAnthropicTools(request.tools);
    const budget =
      options.thinkingBudgetTokens === undefined ? undefined : Math.min(options.thinkingBudgetTokens, maxTokens - 1);
    if (budget !== undefined && budget >= MIN_THINKING_BUDGET)
      body.thinking = { type: "enabled", budget_tokens: budget };
    return body;
  };

  async function* attempt(body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ModelEvent[]> {
    const authHint = "check ANTHROPIC_API_KEY or the key stored by deep-acp login";
    let limits: QuotaPool | undefined;
    const onLimits = (pool: QuotaPool) => void (limits = pool);
    const reader = { fromHeaders: anthropicLimits };
    const events = streamSse({
      ...transport,
      url,
      headers,
      body,
      signal,
      label: LABEL,
      authHint,
      limits: reader,
      onLimits,
    });
    const assembler = createAnthropicAssembler();
    for await (const batch of events) {
      const out: ModelEvent[] = limits ? [{ type: "limits", pool: limits }] : [];
      limits = undefined;
      for (const sse of batch) {
        assembler.push(sse.event, sse.data, out);
        if (assembler.finished) break;
      }
      if (out.length > 0) yield out;
      if (assembler.finished) return;
    }
    throw new ModelApiError(`${LABEL} stream ended before message_stop`, { retryable: true });
  }

  return {
    id: `anthropic:${options.model}`,
    provider: "anthropic",
    model: options.model,
    contextWindow: options.contextWindow ?? info.contextWindow,
    supportsImages: options.supportsImages ?? info.supportsImages,
    stream: (request) =>
      streamAttempts(
        LABEL,
        () => buildBody(request),
        (body) => attempt(body, request.signal),
        { signal: request.signal, retry: options.retry, logger },
      ),
  };
}

type Block =
  | { kind: "text"; text: string }
  | { kind: "thinking"; text: string; signature: string }
  | { kind: "redacted"; data: string }
  | { kind: "tool"; id: string; name: string; json: string[]; initialInput: unknown; input?: unknown };

// Wire events are read defensively field by field; a typed schema would add nothing but bulk.
type Wire = Record<string, any>;

/**
 * Turns one attempt's Anthropic stream events into ModelEvents, appended to `out` (no array per
 * event: a burst has thousands); throws ModelApiError on stream errors.
 */
export function createAnthropicAssembler() {
  const blocks: Block[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let stopReason: string | null = null;
  const state = { finished: false };

  const push = (eventName: string, data: string, out: ModelEvent[]): void => {
    const wire = parseStreamJson<Wire>(LABEL, data);
    const type = typeof wire.type === "string" ? wire.type : eventName;
    switch (type) {
      case "content_block_delta":
        return applyDelta(blocks[Number(wire.index)], wire.delta ?? {}, out);
      case "message_start":
        usage = mergeUsage(usage, wire.message?.usage);
        return void out.push({ type: "usage", usage });
      case "content_block_start":
        return startBlock(Number(wire.index), wire.content_block ?? {}, out);
      case "message_delta":
        if (wire.delta?.stop_reason) stopReason = wire.delta.stop_reason;
        if (!wire.usage) return;
        usage = mergeUsage(usage, wire.usage);
        return void out.push({ type: "usage", usage });
      case "content_block_stop": {
        const block = blocks[Number(wire.index)];
        if (block?.kind !== "tool") return;
        block.input = toolInput(block);
        return void out.push({ type: "tool_call_ready", id: block.id, name: block.name, input: block.input });
      }
      case "message_stop":
        state.finished = true;
        return void out.push(finishMessage(blocks, stopReason, usage));
      case "error":
        throw streamError(wire.error ?? {});
      default:
        // ping and event types added after this was written carry nothing we need.
        return;
    }
  };

  const startBlock = (index: number, block: Wire, out: ModelEvent[]): void => {
    switch (block.type) {
      case "text":
        blocks[index] = { kind: "text", text: block.text ?? "" };
        if (block.text) out.push({ type: "text_delta", text: block.text });
        return;
      case "thinking":
        blocks[index] = { kind: "thinking", text: block.thinking ?? "", signature: block.signature ?? "" };
        if (block.thinking) out.push({ type: "thinking_delta", text: block.thinking });
        return;
      case "redacted_thinking":
        blocks[index] = { kind: "redacted", data: block.data ?? "" };
        return;
      case "tool_use":
        blocks[index] = { kind: "tool", id: block.id, name: block.name, json: [], initialInput: block.input };
        out.push({ type: "tool_call_start", id: block.id, name: block.name });
        return;
    }
  };

  return {
    push,
    get finished() {
      return state.finished;
    },
  };
}

function applyDelta(block: Block | undefined, delta: Wire, out: ModelEvent[]): void {
  if (!block) return;
  if (delta.type === "text_delta" && block.kind === "text") {
    block.text += delta.text ?? "";
    if (delta.text) out.push({ type: "text_delta", text: delta.text });
  } else if (delta.type === "thinking_delta" && block.kind === "thinking") {
    block.text += delta.thinking ?? "";
    if (delta.thinking) out.push({ type: "thinking_delta", text: delta.thinking });
  } else if (delta.type === "signature_delta" && block.kind === "thinking") block.signature += delta.signature ?? "";
  else if (delta.type === "input_json_delta" && block.kind === "tool") block.json.push(delta.partial_json ?? "");
}

function finishMessage(blocks: Block[], stopReason: string | null, usage: Usage): ModelEvent {
  const message = { role: "assistant" as const, content: blocks.filter(Boolean).map(finishBlock) };
  const hasTools = message.content.some((part) => part.type === "tool_call");
  return { type: "done", stopReason: mapStopReason(stopReason, hasTools), message, usage };
}

function finishBlock(block: Block): AssistantContent {
  switch (block.kind) {
    case "text":
      return { type: "text", text: block.text };
    case "thinking":
      return block.signature
        ? { type: "thinking", text: block.text, signature: block.signature }
        : { type: "thinking", text: block.text };
    case "redacted":
      return { type: "thinking", text: "", redacted: block.data };
    case "tool":
      return { type: "tool_call", id: block.id, name: block.name, input: block.input ?? toolInput(block) };
  }
}

function toolInput(block: Extract<Block, { kind: "tool" }>): unknown {
  const json = block.json.join("");
  return json.trim() === "" ? (block.initialInput ?? {}) : parseToolInput(json);
}

function mergeUsage(current: Usage, wire: Wire | undefined): Usage {
  if (!wire) return current;
  const next: Usage = { ...current };
  if (typeof wire.input_tokens === "number") next.inputTokens = wire.input_tokens;
  if (typeof wire.output_tokens === "number") next.outputTokens = wire.output_tokens;
  if (typeof wire.cache_read_input_tokens === "number") next.cacheReadTokens = wire.cache_read_input_tokens;
  if (typeof wire.cache_creation_input_tokens === "number") next.cacheWriteTokens = wire.cache_creation_input_tokens;
  return next;
}

function mapStopReason(reason: string | null, hasTools: boolean): ModelStopReason {
  switch (reason) {
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "refusal":
      return "refusal";
    default:
      // end_turn, stop_sequence, pause_turn, or none at all.
      return hasTools && reason === null ? "tool_use" : "end_turn";
  }
}

const RETRYABLE_STREAM_ERRORS: Record<string, number> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
};

function streamError(error: Wire): ModelApiError {
  const type = typeof error.type === "string" ? error.type : "error";
  const status = RETRYABLE_STREAM_ERRORS[type];
  return new ModelApiError(`${LABEL} stream error (${type}): ${error.message ?? "no message"}`, {
    retryable: status !== undefined,
    ...(status === undefined ? {} : { status }),
  });
}
