import type { Logger } from "../../util/logger.js";
import { DEFAULT_MAX_OUTPUT_TOKENS, lookupModel, type CatalogOverrides, type ModelInfo } from "../catalog/catalog.js";
import {
  ollamaApiBase,
  providerSettings,
  type EnvLike,
  type ProviderSettings,
  type StoredCredentials,
} from "../catalog/credentials.js";
import { ModelConfigError } from "../errors.js";
import type { FetchLike } from "../wire/http.js";
import { PROVIDERS } from "../catalog/providers.js";
import type { RetryOptions } from "../wire/retry.js";
import { parseModelSpec, type ModelSpec } from "../catalog/spec.js";
import type { ModelClient, ProviderName } from "../types.js";
import type { CommonClientOptions } from "../wire/client-options.js";
import { NO_ROUTING, type ProviderRouting } from "../catalog/routing.js";

export type { CommonClientOptions } from "../wire/client-options.js";

export type CreateModelClientOptions = {
  env: EnvLike;
  credentials?: StoredCredentials;
  /** Default: node:http(s) (see node-post.ts). */
  fetch?: FetchLike;
  /** Default: silent. */
  logger?: Logger;
  retry?: RetryOptions;
  /** Default: min(16384, model maximum) for hosted APIs; unset (server default) for local servers. */
  maxOutputTokens?: number;
  /** Default: catalog value (see lookupModel). */
  contextWindow?: number;
  /** Default: catalog value (see lookupModel). */
  supportsImages?: boolean;
  /** Fail (retryably) when a connection is silent this long. Default 600 000 ms. */
  idleTimeoutMs?: number;
  /** Anthropic (also on Bedrock) extended thinking budget. Default: off. */
  thinkingBudgetTokens?: number;
  /** OpenAI reasoning models' `reasoning.effort`. Default: the model's own. */
  reasoningEffort?: "low" | "medium" | "high";
  /** config.toml `[model.catalog]`: per-model limits and prices over the built-in catalog. Default none. */
  catalog?: CatalogOverrides;
  /** The editor's providers/set and providers/disable. Default: none. */
  routing?: ProviderRouting;
};

/**
 * Builds the client for `spec`, loading only that provider's module. Throws ModelConfigError
 * ("invalid_spec" or "missing_credentials", naming the variable to set).
 */
export async function createModelClient(
  spec: string | ModelSpec,
  options: CreateModelClientOptions,
): Promise<ModelClient> {
  const parsed = typeof spec === "string" ? parseModelSpec(spec) : spec;
  const info = lookupModel(parsed.provider, parsed.model, options.catalog);
  const client = await createClient(parsed, options, info);
  return info.pricing ? { ...client, pricing: info.pricing } : client;
}

async function createClient(
  { provider, model }: ModelSpec,
  options: CreateModelClientOptions,
  info: ModelInfo,
): Promise<ModelClient> {
  const routing = options.routing ?? NO_ROUTING;
  if (routing.disabled.has(provider))
    throw missing(provider, `${provider}: was turned off by the editor (providers/disable)`);
  const settings = providerSettings(provider, options.env, options.credentials, routing.routes.get(provider));
  const common: CommonClientOptions = {
    model,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.logger && { logger: options.logger }),
    ...(options.retry && { retry: options.retry }),
    contextWindow: options.contextWindow ?? info.contextWindow,
    supportsImages: options.supportsImages ?? info.supportsImages,
    ...(options.idleTimeoutMs !== undefined && { idleTimeoutMs: options.idleTimeoutMs }),
  };
  const hostedMax = options.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens);
  const thinking =
    options.thinkingBudgetTokens === undefined ? {} : { thinkingBudgetTokens: options.thinkingBudgetTokens };
  switch (provider) {
    case "anthropic": {
      const apiKey = settings.gatewayAuth ? "" : requireKey(provider, model, settings);
      const { createAnthropicClient } = await import("../providers/anthropic.js");
      return createAnthropicClient({
        ...common,
        apiKey,
        ...(settings.headers && { headers: { ...settings.headers } }),
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: hostedMax,
        ...thinking,
      });
    }
    case "openai":
    case "openai-responses": {
      const apiKey = settings.gatewayAuth ? "" : requireKey(provider, model, settings);
      // The Responses API exists only at OpenAI itself; a custom base URL may be a proxy that lacks it.
      if (provider === "openai-responses" || (info.reasoning && settings.baseUrl === undefined)) {
        const { createOpenAiResponsesClient } = await import("../providers/openai-responses.js");
        return createOpenAiResponsesClient({
          ...common,
          provider,
          apiKey,
          ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
          maxOutputTokens: hostedMax,
          reasoning: info.reasoning,
          ...(options.reasoningEffort && { reasoningEffort: options.reasoningEffort }),
        });
      }
      const { createOpenAiChatClient } = await import("../providers/openai-chat.js");
      return createOpenAiChatClient({
        ...common,
        provider,
        ...(apiKey && { apiKey }),
        ...(settings.headers && { headers: { ...settings.headers } }),
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: hostedMax,
      });
    }
    case "azure": {
      const { createAzureClient } = await import("../providers/azure.js");
      return createAzureClient({ ...common, settings, env: options.env, maxOutputTokens: hostedMax });
    }
    case "google":
    case "vertex": {
      const { createGoogleClient } = await import("../providers/google.js");
      if (provider === "google") {
        const apiKey = requireKey(provider, model, settings);
        return createGoogleClient({
          ...common,
          auth: { kind: "api-key", apiKey },
          ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
          maxOutputTokens: hostedMax,
          reasoning: info.reasoning,
        });
      }
      const { vertexAuth } = await import("../providers/vertex-auth.js");
      const auth = await vertexAuth(options.env, model);
      return createGoogleClient({
        ...common,
        auth,
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: hostedMax,
        reasoning: info.reasoning,
      });
    }
    case "bedrock": {
      const { createBedrockClient } = await import("../providers/bedrock.js");
      return createBedrockClient({ ...common, env: options.env, maxOutputTokens: hostedMax, ...thinking });
    }
    case "openai-compatible":
    case "ollama":
    case "openrouter":
    case "groq":
    case "mistral":
    case "deepseek":
    case "together":
    case "lmstudio":
    case "vllm": {
      if (PROVIDERS[provider].keyRequired && !settings.gatewayAuth) requireKey(provider, model, settings);
      if (provider === "openai-compatible" && !settings.baseUrl) {
        throw missing(provider, `openai-compatible:${model} needs a server URL: set OPENAI_COMPATIBLE_BASE_URL`);
      }
      const baseUrl = provider === "ollama" && settings.baseUrl ? ollamaApiBase(settings.baseUrl) : settings.baseUrl;
      // Local servers know their own limits (small local context windows reject large caps).
      const maxOutputTokens = options.maxOutputTokens ?? (info.known ? hostedMax : undefined);
      const { createOpenAiChatClient } = await import("../providers/openai-chat.js");
      return createOpenAiChatClient({
        ...common,
        provider,
        ...(settings.apiKey && !settings.gatewayAuth && { apiKey: settings.apiKey }),
        ...(baseUrl && { baseUrl }),
        ...(maxOutputTokens !== undefined && { maxOutputTokens }),
        ...withHeaders(presetExtras(provider), settings.headers),
      });
    }
  }
}

function presetExtras(provider: ProviderName): { headers?: Record<string, string>; streamUsage?: boolean } {
  if (provider === "openrouter")
    return { headers: { "x-title": "deep-acp", "http-referer": "https://www.npmjs.com/package/deep-acp" } };
  // Mistral sends usage on its last chunk unasked and rejects fields it does not know.
  if (provider === "mistral") return { streamUsage: false };
  return {};
}

function withHeaders<T extends { headers?: Record<string, string> }>(
  extras: T,
  headers: Readonly<Record<string, string>> | undefined,
): T {
  return headers ? { ...extras, headers: { ...extras.headers, ...headers } } : extras;
}

function requireKey(provider: ProviderName, model: string, settings: ProviderSettings): string {
  if (settings.apiKey) return settings.apiKey;
  const vars = PROVIDERS[provider].keyVars;
  throw missing(provider, `${provider}:${model} needs an API key: set ${vars.join(" or ")} (or run deep-acp login)`);
}

function missing(provider: ProviderName, message: string): ModelConfigError {
  return new ModelConfigError("missing_credentials", message, provider);
}
