import {
  CATALOG_ALIASES,
  REGIONAL_PREMIUM_MODELS,
  VENDOR_CATALOG,
  type CatalogEntry,
  type Vendor,
} from "./catalog-data.js";
import { PROVIDERS, type ProviderInfo } from "./providers.js";
import type { ModelPricing } from "../types.js";
import type { ProviderName } from "../types.js";

export type { CatalogEntry } from "./catalog-data.js";
export { usageCostUsd, type ModelPricing, type TokenPrices } from "./pricing.js";

export type ModelInfo = {
  /** Human name for pickers, e.g. "Claude Sonnet 4.5". */
  name: string;
  contextWindow: number;
  /** Largest `max_tokens` the model accepts. */
  maxOutputTokens: number;
  supportsImages: boolean;
  /** Takes reasoning settings (OpenAI Responses `reasoning`, Gemini `thinkingConfig`). */
  reasoning: boolean;
  /** USD per million tokens; undefined when unknown (cost is then shown as unknown, never guessed). */
  pricing?: ModelPricing;
  /** True when the catalog (or a config override) knows this model; false means conservative defaults. */
  known: boolean;
};

/** One `[model.catalog."provider:model"]` table of config.toml. Prices are USD per million tokens. */
export type CatalogOverride = {
  name?: string;
  context_window?: number;
  max_output_tokens?: number;
  supports_images?: boolean;
  input_price?: number;
  output_price?: number;
  cache_read_price?: number;
  cache_write_price?: number;
};
/** Keyed by `provider:model`, exactly as written in --model. */
export type CatalogOverrides = Readonly<Record<string, CatalogOverride>>;

/** Default `max_tokens` when neither the caller nor config sets one (capped by the model's maximum). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

const K = 1000;

/** Which vendor's table a provider's model name is looked up in, and under which name. */
type Placement = { vendor: Vendor; model: string; priced: boolean };

function place(provider: string, model: string): Placement | undefined {
  switch (provider) {
    case "anthropic":
      return { vendor: "anthropic", model, priced: true };
    case "openai":
    case "openai-responses":
      return { vendor: "openai", model, priced: true };
    case "azure":
      // A deployment named after its model gets the model's limits; Azure's price depends on the
      // deployment type (global, data zone, regional), which the name does not tell.
      return { vendor: "openai", model, priced: false };
    case "google":
    case "vertex":
      return { vendor: "google", model, priced: true };
    case "bedrock":
      return placeBedrock(model);
    case "openrouter":
      return placeOpenRouter(model);
    case "deepseek":
    case "groq":
    case "mistral":
    case "together":
      return { vendor: provider, model, priced: true };
    default:
      // Local and self-hosted servers (ollama, lmstudio, vllm, openai-compatible) serve anything.
      return undefined;
  }
}

/** `us.anthropic.claude-sonnet-4-5-20250929-v1:0` → anthropic / claude-sonnet-4-5-20250929. */
function placeBedrock(model: string): Placement | undefined {
  const match = /^(?:(us|eu|apac|jp|au|ca|us-gov|global)\.)?([a-z0-9-]+)\.(.+?)(?:-v\d+(?::\d+)?)?(?::\d+k)?$/.exec(
    model,
  );
  if (!match) return undefined;
  const [, geo, vendor, name] = match as unknown as [string, string | undefined, string, string];
  if (vendor === "anthropic") {
    const family = stripDate(name);
    const premium = REGIONAL_PREMIUM_MODELS.has(CATALOG_ALIASES[family] ?? family) && geo !== "global";
    return { vendor: "anthropic", model: name, priced: !premium };
  }
  if (vendor === "amazon") return { vendor: "amazon", model: name, priced: true };
  return undefined;
}

/** `anthropic/claude-sonnet-4.5` → anthropic / claude-sonnet-4-5. OpenRouter passes list prices through. */
function placeOpenRouter(model: string): Placement | undefined {
  const slash = model.indexOf("/");
  if (slash === -1) return undefined;
  const vendor = model.slice(0, slash);
  const name = model.slice(slash + 1);
  if (vendor === "anthropic") return { vendor, model: name.replace(/(\d)\.(\d)/g, "$1-$2"), priced: true };
  if (vendor === "openai" || vendor === "google" || vendor === "deepseek") return { vendor, model: name, priced: true };
  return undefined;
}

function stripDate(model: string): string {
  return model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "").replace(/@\d{8}$/, "");
}

function findIn(vendor: Vendor, model: string): CatalogEntry | undefined {
  const entries = VENDOR_CATALOG[vendor];
  const family = stripDate(model);
  const names = [model, family, CATALOG_ALIASES[family]].filter((n): n is string => n !== undefined);
  for (const name of names) {
    const hit = entries.find((entry) => entry.model === name);
    if (hit) return hit;
  }
  return undefined;
}

/** Catalog models a provider offers in the picker without configuration. */
export function catalogModels(provider: ProviderName | string): readonly CatalogEntry[] {
  switch (provider) {
    case "anthropic":
    case "openai":
    case "google":
    case "deepseek":
    case "groq":
    case "mistral":
    case "together":
      return VENDOR_CATALOG[provider];
    case "openai-responses":
      return VENDOR_CATALOG.openai.filter((entry) => entry.reasoning);
    case "vertex":
      return VENDOR_CATALOG.google;
    default:
      return [];
  }
}

/** The catalog entry of `model` at `provider`, or undefined. Accepts dated snapshots and "-latest" names. */
export function findModel(provider: ProviderName | string, model: string): CatalogEntry | undefined {
  const placement = place(provider, model);
  return placement ? findIn(placement.vendor, placement.model) : undefined;
}

/**
 * Limits and prices of `model` at `provider`: the catalog's, with config overrides applied, else
 * conservative defaults and no price.
 */
export function lookupModel(
  provider: ProviderName | string,
  model: string,
  overrides: CatalogOverrides = {},
): ModelInfo {
  const placement = place(provider, model);
  const hit = placement ? findIn(placement.vendor, placement.model) : undefined;
  const base: ModelInfo = hit
    ? {
        name: hit.name,
        contextWindow: hit.contextWindow,
        maxOutputTokens: hit.maxOutputTokens,
        supportsImages: hit.supportsImages,
        reasoning: hit.reasoning === true,
        ...(hit.pricing && placement?.priced && { pricing: hit.pricing }),
        known: true,
      }
    : defaults(provider, model);
  const override = overrides[`${provider}:${model}`];
  return override ? applyOverride(base, override) : base;
}

function defaults(provider: string, model: string): ModelInfo {
  const anthropic = provider === "anthropic" || (provider === "bedrock" && model.includes("anthropic."));
  // Servers found by URL (ollama, LM Studio, vLLM, openai-compatible) are local.
  const local = (PROVIDERS as Partial<Record<string, ProviderInfo>>)[provider]?.detect === "url";
  return {
    name: model,
    contextWindow: anthropic ? 200 * K : 128 * K,
    maxOutputTokens: anthropic ? 64 * K : DEFAULT_MAX_OUTPUT_TOKENS,
    // Hosted frontier APIs take images; a local server may run a text-only model.
    supportsImages: !local && provider !== "deepseek" && provider !== "groq",
    reasoning: /^(o\d|gpt-5(?!-chat))/.test(model),
    known: false,
  };
}

function applyOverride(base: ModelInfo, override: CatalogOverride): ModelInfo {
  const info: ModelInfo = { ...base, known: true };
  if (override.name !== undefined) info.name = override.name;
  if (override.context_window !== undefined) info.contextWindow = override.context_window;
  if (override.max_output_tokens !== undefined) info.maxOutputTokens = override.max_output_tokens;
  if (override.supports_images !== undefined) info.supportsImages = override.supports_images;
  const prices = {
    ...info.pricing,
    ...(override.input_price !== undefined && { input: override.input_price }),
    ...(override.output_price !== undefined && { output: override.output_price }),
    ...(override.cache_read_price !== undefined && { cacheRead: override.cache_read_price }),
    ...(override.cache_write_price !== undefined && { cacheWrite: override.cache_write_price }),
  };
  // A long-context tier from the catalog no longer matches prices the user replaced.
  if (override.input_price !== undefined || override.output_price !== undefined) delete prices.longContext;
  if (prices.input !== undefined && prices.output !== undefined) info.pricing = prices as ModelPricing;
  else delete info.pricing;
  return info;
}

/**
 * Prices of a `provider:model` (USD per million tokens), or undefined when unknown. With
 * `usageCostUsd(usage, pricing)` this is all a cost display needs.
 */
export function modelPricing(
  provider: ProviderName | string,
  model: string,
  overrides: CatalogOverrides = {},
): ModelPricing | undefined {
  return lookupModel(provider, model, overrides).pricing;
}
