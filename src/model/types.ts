import type { LimitHit, QuotaPool } from "./limits.js";
// One normalized conversation and streaming format for every provider. Providers translate to and
// from their wire format; nothing above model/ sees Anthropic or OpenAI shapes.

export type TextPart = { type: "text"; text: string };
/** Base64 image data, as the model APIs take it. */
export type ImagePart = { type: "image"; mimeType: string; data: string };
export type UserContent = TextPart | ImagePart;

export type ThinkingPart = {
  type: "thinking";
  text: string;
  /** Provider signature that must be sent back unchanged with the thinking block (Anthropic). */
  signature?: string;
  /** Opaque redacted thinking payload (Anthropic `redacted_thinking`). */
  redacted?: string;
  /** OpenAI Responses reasoning item, carried across turns (`store: false` needs it sent back). */
  encrypted?: { id: string; content: string };
};
export type ToolCallPart = {
  type: "tool_call";
  id: string;
  name: string;
  input: unknown;
  /** Gemini's thought signature, sent back unchanged with the call (required by Gemini 3). */
  thoughtSignature?: string;
};
export type AssistantContent = TextPart | ThinkingPart | ToolCallPart;

export type UserMessage = { role: "user"; content: UserContent[] };
export type AssistantMessage = { role: "assistant"; content: AssistantContent[] };
export type ToolResultMessage = {
  role: "tool";
  toolCallId: string;
  toolName: string;
  content: UserContent[];
  isError: boolean;
};
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

export type ModelToolSpec = {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12 subset) of the tool's input object. */
  inputSchema: Record<string, unknown>;
};

export type ModelRequest = {
  system: string;
  messages: Message[];
  tools: ModelToolSpec[];
  maxOutputTokens?: number;
  signal: AbortSignal;
};

export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
};

/** Prices in US dollars per million tokens. */
export type TokenPrices = {
  input: number;
  output: number;
  /** Cached prompt tokens read. Absent: unknown (a usage with cache reads then has no cost). */
  cacheRead?: number;
  /** Prompt tokens written to the cache. Absent: unknown (a usage with cache writes then has no cost). */
  cacheWrite?: number;
};

export type ModelPricing = TokenPrices & {
  /** Prices that apply to the whole request once its prompt exceeds `aboveTokens` (Gemini's long-context tier). */
  longContext?: TokenPrices & { aboveTokens: number };
};

export type ModelStopReason = "end_turn" | "tool_use" | "max_tokens" | "refusal";

export type ModelEvent =
  | { type: "text_delta"; text: string }
  | { type: "thinking_delta"; text: string }
  /** A tool call began streaming; its arguments arrive later. Lets the editor show it early. */
  | { type: "tool_call_start"; id: string; name: string }
  /**
   * A tool call's arguments are complete, before the rest of the message is: the editor can be told
   * what the call does now. The same input is in the `done` message.
   */
  | { type: "tool_call_ready"; id: string; name: string; input: unknown }
  | { type: "usage"; usage: Usage }
  /** The provider's rate limits and quota as its answer reported them (model/limits.ts). */
  | { type: "limits"; pool: QuotaPool }
  /** A retryable failure; the provider waits `delayMs` and tries again. */
  | { type: "retry"; attempt: number; delayMs: number; reason: string }
  | { type: "done"; stopReason: ModelStopReason; message: AssistantMessage; usage: Usage }
  /** Another model takes over (fallback); the editor should say which model answers. */
  | { type: "notice"; message: string }
  /**
   * Terminal failure. `aborted` is true when the request's signal fired; `exhausted` when a retryable
   * failure (outage, rate limit) outlasted the retries before any content was streamed.
   */
  | {
      type: "error";
      message: string;
      aborted: boolean;
      status?: number;
      exhausted?: boolean;
      /** A rate limit or quota outlasted the retries: what to say, and when it lifts. */
      limit?: LimitHit;
    };

/**
 * A configured model. Contract: `stream()` never throws and never rejects once called; every
 * failure (network, HTTP status, bad stream, abort) ends the iteration with an `error` event, and
 * success ends it with exactly one `done` event.
 */
export interface ModelClient {
  /** `provider:model`, as written in `--model`. */
  readonly id: string;
  readonly provider: ProviderName;
  readonly model: string;
  /** Context window in tokens (used for usage_update and compaction). */
  readonly contextWindow: number;
  readonly supportsImages: boolean;
  /** USD per million tokens, from the catalog or config; undefined when unknown. See usageCostUsd in catalog.ts. */
  readonly pricing?: ModelPricing | undefined;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

/**
 * What the providers' `stream` returns: a model stream that can also hand over, without waiting, the
 * events already received after the one `next()` last returned (the rest of that network read). A
 * consumer can then treat a read's thousands of small text deltas as one: a burst costs per read,
 * not per delta.
 */
export type BufferedModelStream = AsyncIterableIterator<ModelEvent> & {
  /** Removes and returns the events already received; [] when the next one is still on the way. */
  takeBuffered(): ModelEvent[];
};

export const PROVIDER_NAMES = [
  "anthropic",
  "openai",
  "openai-responses",
  "openai-compatible",
  "ollama",
  "google",
  "vertex",
  "bedrock",
  "azure",
  "openrouter",
  "groq",
  "mistral",
  "deepseek",
  "together",
  "lmstudio",
  "vllm",
] as const;
export type ProviderName = (typeof PROVIDER_NAMES)[number];
