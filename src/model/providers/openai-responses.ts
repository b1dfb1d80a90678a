import { randomUUID } from "node:crypto";
import { silentLogger } from "../../util/logger.js";
import type { CommonClientOptions } from "../wire/client-options.js";
import { ModelApiError, parseStreamJson } from "../errors.js";
import { streamAttempts } from "../wire/flatten.js";
import { openAiLimits, type QuotaPool, type ResponseHeaders } from "../limits.js";
import { joinUrl, streamSse, transportOf } from "../wire/http.js";
import { toResponsesInput, toResponsesTools } from "./responses-messages.js";
import { isRetryableStatus } from "../wire/retry.js";
import { parseToolInput } from "../wire/tool-input.js";
import type { AssistantContent, ModelClient, ModelEvent, ModelRequest, ModelStopReason, Usage } from "../types.js";

// OpenAI Responses API over our own fetch + SSE parser. Used for reasoning models: their reasoning
// summaries stream as thoughts, and with `store: false` the encrypted reasoning items are sent back
// on the next request, as the API requires for reasoning to continue across tool calls.

export type OpenAiResponsesClientOptions = CommonClientOptions & {
  provider: "openai" | "openai-responses";
  apiKey: string;
  /** Default https://api.openai.com/v1. */
  baseUrl?: string;
  maxOutputTokens?: number;
  /** Send reasoning settings (summaries, encrypted content). Default true; false for non-reasoning models. */
  reasoning?: boolean;
  /** `reasoning.effort`. Default: the model's own. */
  reasoningEffort?: "minimal" | "low" | "medium" | "high";
};

const LABEL = "OpenAI Responses API";

export function createOpenAiResponsesClient(options: OpenAiResponsesClientOptions): ModelClient {
  const url = joinUrl(options.baseUrl ?? "https://api.openai.com/v1", "responses");
  const transport = transportOf(options);
  const logger = options.logger ?? silentLogger;
  const headers = { authorization: `Bearer ${options.apiKey}` };
  const reasoning = options.reasoning !== false;

  const buildBody = (request: ModelRequest): Record<string, unknown> => {
    const body: Record<string, unknown> = {
      model: options.model,
      input: toResponsesInput(request.messages),
      stream: true,
      store: false,
    };
    if (request.system) body.instructions = request.system;
    if (request.tools.length > 0) body.tools = toResponsesTools(request.tools);
    const maxTokens = request.maxOutputTokens ?? options.maxOutputTokens;
    if (maxTokens !== undefined) body.max_output_tokens = maxTokens;
    if (reasoning) {
      body.reasoning = { summary: "auto", ...(options.reasoningEffort && { effort: options.reasoningEffort }) };
      body.include = ["reasoning.encrypted_content"];
    }
    return body;
  };

  async function* attempt(body: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ModelEvent[]> {
    const assembler = createResponsesAssembler();
    const authHint = "check OPENAI_API_KEY or the key stored by deep-acp login";
    let pool: QuotaPool | undefined;
    const limits = { fromHeaders: (h: ResponseHeaders, now: Date) => openAiLimits(h, LABEL, now) };
    const onLimits = (found: QuotaPool) => void (pool = found);
    const request = { ...transport, url, headers, body, signal, label: LABEL, authHint, limits, onLimits };
    for await (const batch of streamSse(request)) {
      const out: ModelEvent[] = pool ? [{ type: "limits", pool }] : [];
      pool = undefined;
      for (const sse of batch) {
        out.push(...assembler.push(sse.event, sse.data));
        if (assembler.finished) break;
      }
      if (out.length > 0) yield out;
      if (assembler.finished) return;
    }
    throw new ModelApiError(`${LABEL} stream ended before response.completed`, { retryable: true });
  }

  return {
    id: `${options.provider}:${options.model}`,
    provider: options.provider,
    model: options.model,
    contextWindow: options.contextWindow,
    supportsImages: options.supportsImages,
    stream: (request) =>
      streamAttempts(
        LABEL,
        () => buildBody(request),
        (body) => attempt(body, request.signal),
        { signal: request.signal, retry: options.retry, logger },
      ),
  };
}

// Wire events are read defensively field by field.
type Wire = Record<string, any>;
type Item =
  | { kind: "reasoning"; id: string; summary: string[]; encrypted?: string }
  | { kind: "message"; text: string }
  | { kind: "call"; id: string; name: string; args: string[]; done?: string; input?: unknown };

/** Turns one attempt's Responses stream events into ModelEvents; throws ModelApiError on failures. */
export function createResponsesAssembler() {
  const items = new Map<string, Item>();
  const order: Item[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let finished = false;

  const itemFor = (wire: Wire): Item | undefined => {
    const key = String(wire.item_id ?? wire.item?.id ?? wire.output_index);
    return items.get(key);
  };

  const push = (eventName: string, data: string): ModelEvent[] => {
    const wire = parseStreamJson<Wire>(LABEL, data);
    const type = typeof wire.type === "string" ? wire.type : eventName;
    switch (type) {
      case "response.output_item.added":
        return addItem(wire.item ?? {}, wire.output_index);
      case "response.reasoning_summary_text.delta": {
        const item = itemFor(wire);
        if (item?.kind !== "reasoning" || typeof wire.delta !== "string") return [];
        const index = Number(wire.summary_index ?? 0);
        // Summary parts are separate paragraphs.
        const prefix = item.summary[index] === undefined && index > 0 ? "\n\n" : "";
        item.summary[index] = (item.summary[index] ?? "") + wire.delta;
        return [{ type: "thinking_delta", text: prefix + wire.delta }];
      }
      case "response.output_text.delta": {
        const item = itemFor(wire);
        if (item?.kind !== "message" || typeof wire.delta !== "string") return [];
        item.text += wire.delta;
        return wire.delta ? [{ type: "text_delta", text: wire.delta }] : [];
      }
      case "response.function_call_arguments.delta": {
        const item = itemFor(wire);
        if (item?.kind === "call" && typeof wire.delta === "string") item.args.push(wire.delta);
        return [];
      }
      case "response.output_item.done": {
        const done: Wire = wire.item ?? {};
        const item = items.get(String(done.id ?? wire.output_index));
        if (item?.kind === "reasoning" && typeof done.encrypted_content === "string")
          item.encrypted = done.encrypted_content;
        if (item?.kind !== "call") return [];
        if (typeof done.arguments === "string") item.done = done.arguments;
        item.input = parseToolInput(item.done ?? item.args.join(""));
        return [{ type: "tool_call_ready", id: item.id, name: item.name, input: item.input }];
      }
      case "response.completed":
      case "response.incomplete":
        return [complete(wire.response ?? {}, type === "response.incomplete")];
      case "response.failed":
        throw failure(wire.response?.error ?? {});
      case "error":
        throw failure(wire.error ?? wire);
      default:
        return [];
    }
  };

  const addItem = (item: Wire, outputIndex: unknown): ModelEvent[] => {
    const key = String(item.id ?? outputIndex);
    let entry: Item;
    const events: ModelEvent[] = [];
    if (item.type === "reasoning") entry = { kind: "reasoning", id: String(item.id ?? ""), summary: [] };
    else if (item.type === "message") entry = { kind: "message", text: "" };
    else if (item.type === "function_call") {
      const id =
        typeof item.call_id === "string" && item.call_id
          ? item.call_id
          : `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`;
      entry = {
        kind: "call",
        id,
        name: String(item.name ?? ""),
        args: typeof item.arguments === "string" && item.arguments ? [item.arguments] : [],
      };
      events.push({ type: "tool_call_start", id, name: entry.name });
    } else return [];
    items.set(key, entry);
    order.push(entry);
    return events;
  };

  const complete = (response: Wire, incomplete: boolean): ModelEvent => {
    finished = true;
    usage = toUsage(response.usage, usage);
    const content: AssistantContent[] = [];
    for (const item of order) {
      if (item.kind === "reasoning") {
        const text = item.summary.filter((s) => s !== undefined).join("\n\n");
        content.push(
          item.encrypted
            ? { type: "thinking", text, encrypted: { id: item.id, content: item.encrypted } }
            : { type: "thinking", text },
        );
      } else if (item.kind === "message") {
        if (item.text) content.push({ type: "text", text: item.text });
      } else {
        content.push({
          type: "tool_call",
          id: item.id,
          name: item.name,
          input: item.input ?? parseToolInput(item.done ?? item.args.join("")),
        });
      }
    }
    const hasTools = content.some((part) => part.type === "tool_call");
    const reason = response.incomplete_details?.reason;
    const stopReason: ModelStopReason = incomplete
      ? reason === "content_filter"
        ? "refusal"
        : "max_tokens"
      : hasTools
        ? "tool_use"
        : "end_turn";
    return { type: "done", stopReason, message: { role: "assistant", content }, usage };
  };

  return {
    push,
    get finished() {
      return finished;
    },
  };
}

/** The Responses API counts cached tokens inside input_tokens; we report them apart. */
function toUsage(wire: Wire | undefined, current: Usage): Usage {
  if (!wire) return current;
  const input = typeof wire.input_tokens === "number" ? wire.input_tokens : 0;
  const cached =
    typeof wire.input_tokens_details?.cached_tokens === "number" ? wire.input_tokens_details.cached_tokens : 0;
  const usage: Usage = {
    inputTokens: input - cached,
    outputTokens: typeof wire.output_tokens === "number" ? wire.output_tokens : 0,
  };
  if (cached > 0) usage.cacheReadTokens = cached;
  return usage;
}

function failure(error: Wire): ModelApiError {
  const code = typeof error.code === "string" ? error.code : undefined;
  const status = code === "rate_limit_exceeded" ? 429 : code === "server_error" ? 500 : undefined;
  return new ModelApiError(`${LABEL} error${code ? ` (${code})` : ""}: ${error.message ?? "no message"}`, {
    retryable: status !== undefined && isRetryableStatus(status),
    ...(status === undefined ? {} : { status }),
  });
}
