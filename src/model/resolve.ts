import type { Logger } from "../util/logger.js";
import { catalogModels, DEFAULT_MAX_OUTPUT_TOKENS, lookupModel, type CatalogOverrides, type ModelInfo } from "./catalog.js";
import { ENV_VARS, ollamaApiBase, providerSettings, type EnvLike, type StoredCredentials } from "./credentials.js";
import { ModelConfigError } from "./errors.js";
import type { FetchLike } from "./http.js";
import type { RetryOptions } from "./retry.js";
import { formatModelSpec, parseModelSpec, type ModelSpec } from "./spec.js";
import { PROVIDER_NAMES, type ModelClient, type ProviderName } from "./types.js";

export { formatModelSpec, parseModelSpec, type ModelSpec } from "./spec.js";
export { ModelConfigError, type ModelConfigErrorCode } from "./errors.js";
export type { EnvLike, StoredCredentials } from "./credentials.js";
export { lookupModel, modelPricing, usageCostUsd, type CatalogOverrides, type ModelInfo, type ModelPricing } from "./catalog.js";

export type ResolveModelSpecInput = {
  /** `--model` value. */
  flag?: string;
  env: EnvLike;
  /** `[model].default` of ~/.deepagents/config.toml. */
  configDefault?: string;
  credentials?: StoredCredentials;
};

export type ResolvedModelSpec = ModelSpec & {
  /** Canonical `provider:model`. */
  spec: string;
  /** Where the choice came from, for `deep-acp doctor`. */
  source: string;
};

const DEFAULT_MODELS: Partial<Record<ProviderName, string>> = { anthropic: "claude-sonnet-4-5", openai: "gpt-5" };

/** Picks the model: --model > DEEP_ACP_MODEL > config default > first provider with credentials. Never throws. */
export function resolveModelSpec(input: ResolveModelSpecInput): ResolvedModelSpec | { error: string } {
  const explicit: Array<[string | undefined, string]> = [
    [input.flag, "--model flag"],
    [input.env.DEEP_ACP_MODEL, "DEEP_ACP_MODEL"],
    [input.configDefault, "~/.deepagents/config.toml [model].default"],
  ];
  for (const [value, source] of explicit) {
    if (value === undefined || value.trim() === "") continue;
    try {
      return withSpec(parseModelSpec(value), source);
    } catch (error) {
      return { error: `${source}: ${(error as Error).message}` };
    }
  }
  // Environment first, then stored credentials, each in provider order.
  const auto: Array<[ProviderName, EnvLike, StoredCredentials, string]> = [];
  for (const provider of ["anthropic", "openai", "openai-compatible"] as const) {
    auto.push([provider, input.env, {}, provider === "openai-compatible" ? ENV_VARS[provider].baseUrl : ENV_VARS[provider].key]);
  }
  for (const provider of PROVIDER_NAMES) auto.push([provider, {}, input.credentials ?? {}, `stored credentials (${provider})`]);
  for (const [provider, env, credentials, source] of auto) {
    const settings = providerSettings(provider, env, credentials);
    if (!settings.usable) continue;
    const model = DEFAULT_MODELS[provider] ?? settings.model;
    if (model === undefined) {
      const orEnv = provider === "openai-compatible" && env === input.env ? ` or set ${ENV_VARS[provider].model}` : "";
      return { error: `${source} is set but no model is named: pass --model ${provider}:<model>${orEnv}` };
    }
    return withSpec({ provider, model }, source);
  }
  return {
    error:
      "No model configured: set ANTHROPIC_API_KEY or OPENAI_API_KEY, set OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_MODEL, " +
      `run \`deep-acp login\`, or pass --model provider:model (providers: ${PROVIDER_NAMES.join(", ")}).`,
  };
}

function withSpec(spec: ModelSpec, source: string): ResolvedModelSpec {
  return { ...spec, spec: formatModelSpec(spec), source };
}

export type CreateModelClientOptions = {
  env: EnvLike;
  credentials?: StoredCredentials;
  /** Default: global fetch. */
  fetch?: FetchLike;
  /** Default: silent. */
  logger?: Logger;
  retry?: RetryOptions;
  /** Default: min(16384, model maximum) for anthropic/openai; unset (server default) for the others. */
  maxOutputTokens?: number;
  /** Default: catalog value (see lookupModel). */
  contextWindow?: number;
  /** Default: catalog value (see lookupModel). */
  supportsImages?: boolean;
  /** Fail (retryably) when a connection is silent this long. Default 600 000 ms. */
  idleTimeoutMs?: number;
  /** Anthropic extended thinking budget. Default: off. */
  thinkingBudgetTokens?: number;
  /** config.toml `[model.catalog]`: per-model limits and prices over the built-in catalog. Default none. */
  catalog?: CatalogOverrides;
};

/**
 * Builds the client for `spec`, loading only that provider's module. Throws ModelConfigError
 * ("invalid_spec" or "missing_credentials", naming the variable to set).
 */
export async function createModelClient(spec: string | ModelSpec, options: CreateModelClientOptions): Promise<ModelClient> {
  const parsed = typeof spec === "string" ? parseModelSpec(spec) : spec;
  const info = lookupModel(parsed.provider, parsed.model, options.catalog);
  const client = await createClient(parsed, options, info);
  return info.pricing ? { ...client, pricing: info.pricing } : client;
}

async function createClient({ provider, model }: ModelSpec, options: CreateModelClientOptions, info: ModelInfo): Promise<ModelClient> {
  const settings = providerSettings(provider, options.env, options.credentials);
  const common = {
    model,
    ...(options.fetch && { fetch: options.fetch }),
    ...(options.logger && { logger: options.logger }),
    ...(options.retry && { retry: options.retry }),
    contextWindow: options.contextWindow ?? info.contextWindow,
    supportsImages: options.supportsImages ?? info.supportsImages,
    ...(options.idleTimeoutMs !== undefined && { idleTimeoutMs: options.idleTimeoutMs }),
  };
  if (provider === "anthropic") {
    if (!settings.apiKey) throw missing(provider, `${provider}:${model} needs an API key: set ANTHROPIC_API_KEY`);
    const { createAnthropicClient } = await import("./anthropic.js");
    return createAnthropicClient({
      ...common,
      apiKey: settings.apiKey,
      ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
      maxOutputTokens: options.maxOutputTokens ?? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens),
      ...(options.thinkingBudgetTokens !== undefined && { thinkingBudgetTokens: options.thinkingBudgetTokens }),
    });
  }
  if (provider === "openai" && !settings.apiKey) throw missing(provider, `openai:${model} needs an API key: set OPENAI_API_KEY`);
  if (provider === "openai-compatible" && !settings.baseUrl) {
    throw missing(provider, `openai-compatible:${model} needs a server URL: set OPENAI_COMPATIBLE_BASE_URL`);
  }
  const baseUrl = provider === "ollama" && settings.baseUrl ? ollamaApiBase(settings.baseUrl) : settings.baseUrl;
  const maxOutputTokens =
    options.maxOutputTokens ?? (provider === "openai" ? Math.min(DEFAULT_MAX_OUTPUT_TOKENS, info.maxOutputTokens) : undefined);
  const { createOpenAiChatClient } = await import("./openai-chat.js");
  return createOpenAiChatClient({
    ...common,
    provider,
    ...(settings.apiKey && { apiKey: settings.apiKey }),
    ...(baseUrl && { baseUrl }),
    ...(maxOutputTokens !== undefined && { maxOutputTokens }),
  });
}

function missing(provider: ProviderName, message: string): ModelConfigError {
  return new ModelConfigError("missing_credentials", message, provider);
}

export type ModelChoice = { spec: string; name: string; description: string };

export type ListModelChoicesInput = {
  env: EnvLike;
  credentials?: StoredCredentials;
  /** `[model].options` of config.toml; unparsable entries are skipped (the config loader reports them). */
  configOptions: string[];
  /** The session's current `provider:model`; always listed. */
  current?: string;
  /** config.toml `[model.catalog]`. Default none. */
  catalog?: CatalogOverrides;
};

const PROVIDER_LABELS: Record<ProviderName, string> = {
  anthropic: "Anthropic",
  openai: "OpenAI",
  "openai-compatible": "OpenAI-compatible",
  ollama: "Ollama",
};

/** Entries for the editor's model picker: catalog models of configured providers, config extras, the current model. */
export function listModelChoices(input: ListModelChoicesInput): ModelChoice[] {
  const specs: ModelSpec[] = [];
  for (const provider of PROVIDER_NAMES) {
    const settings = providerSettings(provider, input.env, input.credentials);
    if (!settings.usable) continue;
    for (const entry of catalogModels(provider)) specs.push({ provider, model: entry.model });
    if (settings.model) specs.push({ provider, model: settings.model });
  }
  for (const text of [...input.configOptions, ...(input.current ? [input.current] : [])]) {
    try {
      specs.push(parseModelSpec(text));
    } catch {
      // skipped: see ListModelChoicesInput.configOptions
    }
  }
  const seen = new Set<string>();
  const choices: ModelChoice[] = [];
  for (const spec of specs) {
    const id = formatModelSpec(spec);
    if (seen.has(id)) continue;
    seen.add(id);
    const info = lookupModel(spec.provider, spec.model, input.catalog);
    const context = info.contextWindow >= 1_000_000 ? `${(info.contextWindow / 1_000_000).toFixed(1)}M` : `${Math.round(info.contextWindow / 1000)}K`;
    const price = info.pricing ? ` · $${formatPrice(info.pricing.input)}/$${formatPrice(info.pricing.output)} per M tokens` : "";
    choices.push({ spec: id, name: info.name, description: `${PROVIDER_LABELS[spec.provider]} · ${context} context${price}` });
  }
  return choices;
}

function formatPrice(usd: number): string {
  return Number.isInteger(usd) ? String(usd) : String(Number(usd.toFixed(3)));
}
