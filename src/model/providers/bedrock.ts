import { envValue, type EnvLike } from "../catalog/credentials.js";
import { errorMessage, isAbortError } from "../../util/errors.js";
import { silentLogger } from "../../util/logger.js";
import type { CommonClientOptions } from "../wire/client-options.js";
import { ModelApiError } from "../errors.js";
import { describeLimitHit, type QuotaPool } from "../limits.js";
import { streamAttempts } from "../wire/flatten.js";
import { addCachePoints, toConverseMessages, toConverseTools } from "./bedrock-messages.js";
import { isRetryableStatus, parseRetryAfter } from "../wire/retry.js";
import { modelProxyFor, tunnellingAgentFor } from "../wire/proxy-route.js";
import { parseToolInput } from "../wire/tool-input.js";
import type { AssistantContent, ModelClient, ModelEvent, ModelRequest, ModelStopReason, Usage } from "../types.js";
import { importOptional } from "../catalog/optional-packages.js";

// AWS Bedrock ConverseStream through the AWS SDK, which brings the standard credential chain (env,
// shared config and profiles, SSO cache, web identity, container and instance roles), SigV4 signing
// and the event-stream decoder. Loaded only when a bedrock: model is used. The SDK's own retries are
// off so retries look the same as every other provider's (retry events, the same backoff).

export type BedrockClientOptions = CommonClientOptions & {
  env: EnvLike;
  maxOutputTokens?: number;
  /** Claude extended thinking budget. Default: off. */
  thinkingBudgetTokens?: number;
};

const LABEL = "AWS Bedrock";
const RETRYABLE_NAMES = new Set([
  "ThrottlingException",
  "ServiceUnavailableException",
  "InternalServerException",
  "ModelStreamErrorException",
  "ModelNotReadyException",
  "TimeoutError",
]);
const CREDENTIAL_HINT =
  "set AWS_PROFILE (run `aws sso login --profile NAME` if it uses SSO) or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY";

const BEDROCK_PACKAGES = {
  provider: "bedrock",
  purpose: "bedrock: models",
  packages: ["@aws-sdk/client-bedrock-runtime", "@smithy/node-http-handler"],
} as const;

export async function createBedrockClient(options: BedrockClientOptions): Promise<ModelClient> {
  const [sdk, { NodeHttpHandler }] = await importOptional(BEDROCK_PACKAGES, () =>
    Promise.all([import("@aws-sdk/client-bedrock-runtime"), import("@smithy/node-http-handler")]),
  );
  const region = envValue(options.env, "AWS_REGION") ?? envValue(options.env, "AWS_DEFAULT_REGION");
  const endpoint = envValue(options.env, "AWS_ENDPOINT_URL_BEDROCK_RUNTIME");
  // HTTP/1.1: the client's HTTP/2 default exists for bidirectional streams, which ConverseStream is not,
  // and proxies and gateways speak HTTP/1.1. The AWS SDK reads no proxy variables itself.
  const proxy = modelProxyFor(
    new URL(endpoint ?? `https://bedrock-runtime.${region ?? "us-east-1"}.amazonaws.com`),
    options.env,
  );
  const runtime = new sdk.BedrockRuntimeClient({
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler(proxy ? { httpsAgent: tunnellingAgentFor(proxy) } : {}),
    ...(region && { region }),
    ...(endpoint && { endpoint }),
  });
  const logger = options.logger ?? silentLogger;
  const claude = /(^|\.)anthropic\./.test(options.model);

  const buildInput = (request: ModelRequest): Record<string, unknown> => {
    const messages = toConverseMessages(request.messages);
    const system: Record<string, unknown>[] = request.system ? [{ text: request.system }] : [];
    const tools = toConverseTools(request.tools);
    if (claude) addCachePoints(system, tools, messages);
    const maxTokens = request.maxOutputTokens ?? options.maxOutputTokens;
    const input: Record<string, unknown> = { modelId: options.model, messages };
    if (system.length > 0) input.system = system;
    if (tools.length > 0) input.toolConfig = { tools };
    if (maxTokens !== undefined) input.inferenceConfig = { maxTokens };
    const budget =
      options.thinkingBudgetTokens === undefined || maxTokens === undefined
        ? options.thinkingBudgetTokens
        : Math.min(options.thinkingBudgetTokens, maxTokens - 1);
    if (claude && budget !== undefined && budget >= 1024)
      input.additionalModelRequestFields = { thinking: { type: "enabled", budget_tokens: budget } };
    return input;
  };

  async function* attempt(input: Record<string, unknown>, signal: AbortSignal): AsyncGenerator<ModelEvent[]> {
    const assembler = createConverseAssembler();
    try {
      const response = await runtime.send(new sdk.ConverseStreamCommand(input as never), { abortSignal: signal });
      if (!response.stream) throw new ModelApiError(`${LABEL} returned no stream`, { retryable: true });
      for await (const event of response.stream) {
        const out = assembler.push(event as unknown as Record<string, unknown>);
        if (out.length > 0) yield out;
        if (assembler.finished) return;
      }
    } catch (error) {
      throw toApiError(error);
    }
    yield assembler.end();
  }

  return {
    id: `bedrock:${options.model}`,
    provider: "bedrock",
    model: options.model,
    contextWindow: options.contextWindow,
    supportsImages: options.supportsImages,
    stream: (request) =>
      streamAttempts(
        LABEL,
        () => buildInput(request),
        (input) => attempt(input, request.signal),
        { signal: request.signal, retry: options.retry, logger },
      ),
  };
}

type SdkError = Error & {
  $metadata?: { httpStatusCode?: number };
  $retryable?: unknown;
  $response?: { headers?: Record<string, string> };
};

function toApiError(error: unknown): unknown {
  if (error instanceof ModelApiError || isAbortError(error)) return error;
  const sdkError = error as SdkError;
  const name = sdkError?.name ?? "Error";
  if (name === "CredentialsProviderError" || /credential/i.test(name)) {
    return new ModelApiError(`${LABEL}: no AWS credentials found (${errorMessage(error)}); ${CREDENTIAL_HINT}`, {
      retryable: false,
    });
  }
  const status = sdkError?.$metadata?.httpStatusCode;
  const retryable =
    RETRYABLE_NAMES.has(name) ||
    (status !== undefined && isRetryableStatus(status)) ||
    sdkError?.$retryable !== undefined;
  let message = `${LABEL} error${status ? ` ${status}` : ""} (${name}): ${errorMessage(error)}`;
  if (name === "ExpiredTokenException" || name === "UnrecognizedClientException" || status === 401 || status === 403)
    message += ` (${CREDENTIAL_HINT})`;
  if (/region/i.test(errorMessage(error)) && status === undefined) message += " (set AWS_REGION)";
  if (status === undefined && !RETRYABLE_NAMES.has(name) && sdkError?.$metadata === undefined) {
    // Connection failures have no HTTP response.
    const network = /ECONNREFUSED|ECONNRESET|ETIMEDOUT|socket|network/i.test(`${name} ${errorMessage(error)}`);
    return new ModelApiError(message, { retryable: network });
  }
  // The SDK keeps the raw response on the error: honour the server's retry-after like every other provider.
  const retryAfterMs = sdkError?.$response?.headers
    ? parseRetryAfter(new Headers(sdkError.$response.headers))
    : undefined;
  return new ModelApiError(message, {
    retryable,
    ...(status === undefined ? {} : { status }),
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...throttled(name, status, errorMessage(error), retryAfterMs),
  });
}

/** Bedrock reports no limits, only that it throttles (or that a service quota is used up). */
function throttled(name: string, status: number | undefined, detail: string, retryAfterMs?: number) {
  if (name !== "ThrottlingException" && name !== "ServiceQuotaExceededException" && status !== 429) return {};
  const now = new Date();
  const resetsAt = retryAfterMs === undefined ? undefined : new Date(now.getTime() + retryAfterMs).toISOString();
  const pool: QuotaPool = {
    id: "bedrock",
    label: "AWS Bedrock throughput",
    state: "exhausted",
    meters: [{ id: name, label: name === "ThrottlingException" ? "Requests" : "Service quota", status: "exceeded" }],
  };
  return {
    limit: describeLimitHit(
      `${LABEL} ${name === "ThrottlingException" ? "rate" : "quota"}`,
      detail,
      resetsAt,
      now,
      pool,
    ),
  };
}

type Block =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string; signature: string; redacted?: Uint8Array }
  | { kind: "tool"; id: string; name: string; json: string[]; input?: unknown };

// Stream events are read defensively field by field.
type Wire = Record<string, any>;

/** Turns one attempt's ConverseStream events into ModelEvents; throws ModelApiError on in-stream errors. */
export function createConverseAssembler() {
  const blocks: Block[] = [];
  let usage: Usage = { inputTokens: 0, outputTokens: 0 };
  let stopReason: string | undefined;
  let finished = false;

  const push = (event: Wire): ModelEvent[] => {
    if (event.contentBlockStart) {
      const { contentBlockIndex, start } = event.contentBlockStart as Wire;
      if (start?.toolUse) {
        blocks[Number(contentBlockIndex)] = {
          kind: "tool",
          id: String(start.toolUse.toolUseId),
          name: String(start.toolUse.name),
          json: [],
        };
        return [{ type: "tool_call_start", id: String(start.toolUse.toolUseId), name: String(start.toolUse.name) }];
      }
      return [];
    }
    if (event.contentBlockDelta)
      return applyDelta(Number(event.contentBlockDelta.contentBlockIndex), event.contentBlockDelta.delta ?? {});
    if (event.contentBlockStop) {
      const block = blocks[Number(event.contentBlockStop.contentBlockIndex)];
      if (block?.kind !== "tool") return [];
      block.input = parseToolInput(block.json.join(""));
      return [{ type: "tool_call_ready", id: block.id, name: block.name, input: block.input }];
    }
    if (event.messageStop) {
      stopReason = String(event.messageStop.stopReason ?? "end_turn");
      return [];
    }
    if (event.metadata) {
      usage = toUsage(event.metadata.usage, usage);
      finished = stopReason !== undefined;
      return finished ? [{ type: "usage", usage }, done()] : [{ type: "usage", usage }];
    }
    for (const [key, value] of Object.entries(event)) {
      if (key.endsWith("Exception") && value) throw streamException(key, value as Wire);
    }
    return [];
  };

  const applyDelta = (index: number, delta: Wire): ModelEvent[] => {
    if (typeof delta.text === "string") {
      const block = (blocks[index] ??= { kind: "text", text: "" });
      if (block.kind === "text") block.text += delta.text;
      return delta.text ? [{ type: "text_delta", text: delta.text }] : [];
    }
    if (delta.toolUse) {
      const block = blocks[index];
      if (block?.kind === "tool" && typeof delta.toolUse.input === "string") block.json.push(delta.toolUse.input);
      return [];
    }
    if (delta.reasoningContent) {
      const block = (blocks[index] ??= { kind: "reasoning", text: "", signature: "" });
      if (block.kind !== "reasoning") return [];
      const reasoning: Wire = delta.reasoningContent;
      if (typeof reasoning.signature === "string") block.signature += reasoning.signature;
      if (reasoning.redactedContent) block.redacted = reasoning.redactedContent as Uint8Array;
      if (typeof reasoning.text === "string" && reasoning.text) {
        block.text += reasoning.text;
        return [{ type: "thinking_delta", text: reasoning.text }];
      }
    }
    return [];
  };

  const done = (): ModelEvent => {
    const content: AssistantContent[] = blocks.filter(Boolean).map((block): AssistantContent => {
      if (block.kind === "text") return { type: "text", text: block.text };
      if (block.kind === "tool")
        return {
          type: "tool_call",
          id: block.id,
          name: block.name,
          input: block.input ?? parseToolInput(block.json.join("")),
        };
      if (block.redacted)
        return { type: "thinking", text: "", redacted: Buffer.from(block.redacted).toString("base64") };
      return block.signature
        ? { type: "thinking", text: block.text, signature: block.signature }
        : { type: "thinking", text: block.text };
    });
    return {
      type: "done",
      stopReason: mapStopReason(
        stopReason,
        content.some((p) => p.type === "tool_call"),
      ),
      message: { role: "assistant", content },
      usage,
    };
  };

  return {
    push,
    get finished() {
      return finished;
    },
    /** The stream ended without metadata: fine after messageStop, else it was cut off. */
    end(): ModelEvent[] {
      if (stopReason === undefined)
        throw new ModelApiError(`${LABEL} stream ended before messageStop`, { retryable: true });
      finished = true;
      return [done()];
    },
  };
}

function mapStopReason(reason: string | undefined, hasTools: boolean): ModelStopReason {
  switch (reason) {
    case "tool_use":
      return "tool_use";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "max_tokens";
    case "guardrail_intervened":
    case "content_filtered":
      return "refusal";
    default:
      return hasTools && reason === undefined ? "tool_use" : "end_turn";
  }
}

function toUsage(wire: Wire | undefined, current: Usage): Usage {
  if (!wire) return current;
  const usage: Usage = {
    inputTokens: typeof wire.inputTokens === "number" ? wire.inputTokens : current.inputTokens,
    outputTokens: typeof wire.outputTokens === "number" ? wire.outputTokens : current.outputTokens,
  };
  if (typeof wire.cacheReadInputTokens === "number" && wire.cacheReadInputTokens > 0)
    usage.cacheReadTokens = wire.cacheReadInputTokens;
  if (typeof wire.cacheWriteInputTokens === "number" && wire.cacheWriteInputTokens > 0)
    usage.cacheWriteTokens = wire.cacheWriteInputTokens;
  return usage;
}

function streamException(key: string, value: Wire): ModelApiError {
  const name = key.charAt(0).toUpperCase() + key.slice(1);
  const retryable = RETRYABLE_NAMES.has(name);
  const status =
    name === "ThrottlingException" ? 429 : name === "ValidationException" ? 400 : retryable ? 500 : undefined;
  return new ModelApiError(`${LABEL} stream error (${name}): ${value.message ?? "no message"}`, {
    ...throttled(name, status, String(value.message ?? "no message")),
    retryable,
    ...(status === undefined ? {} : { status }),
  });
}
