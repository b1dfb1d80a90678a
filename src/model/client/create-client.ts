import type { Logger } from "../../util/logger.js";
import { DEFAULT_MAX_OUTPUT_TOKENS, lookupModel, type CatalogOverrides, type ModelInfo } from "../catalog/catalog.js";
import { providerSettings, type EnvLike, type StoredCredentials } from "../catalog/credentials.js";
import type { FetchLike } from "../wire/http.js";
import type { RetryOptions } from "../wire/retry.js";
import { parseModelSpec, type ModelSpec } from "../catalog/spec.js";
import type { ModelClient } from "../types.js";
import type { CommonClientOptions } from "../wire/client-options.js";
import { NO_ROUTING, type ProviderRouting } from "../catalog/routing.js";
import { missingCredentials, providerLoader } from "./provider-loaders.js";

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
 * Builds the client for `spec`, loading only that provider's module (provider-loaders.ts). Throws ModelConfigError
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
    throw missingCredentials(provider, `${provider}: was turned off by the editor (providers/disable)`);
  const common: CommonClientOptions = {
    model,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.logger && { logger: options.logger }),
    ...(options.retry && { retry: options.retry }),
    contextWindow: options.contextWindow ?? info.contextWindow,
    supportsImages: options.supportsImages ?? info.supportsImages,
    ...(options.idleTimeoutMs !== undefined && { idleTimeoutMs: options.idleTimeoutMs }),
  };
  return providerLoader(provider).build({
    provider,
    model,
    info,
    settings: providerSettings(provider, options.env, options.credentials, routing.routes.get(provider)),
    env: options.env,
    common,
    hostedMax: options.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens),
    maxOutputTokens: options.maxOutputTokens,
    thinking: options.thinkingBudgetTokens === undefined ? {} : { thinkingBudgetTokens: options.thinkingBudgetTokens },
    reasoningEffort: options.reasoningEffort,
  });
}
