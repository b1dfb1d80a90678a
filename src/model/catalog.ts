import type { ProviderName } from "./types.js";

export type ModelInfo = {
  /** Human name for pickers, e.g. "Claude Sonnet 4.5". */
  name: string;
  contextWindow: number;
  /** Largest `max_tokens` the model accepts. */
  maxOutputTokens: number;
  supportsImages: boolean;
};

export type CatalogEntry = ModelInfo & { model: string };

const K = 1000;

// Published limits of each model family. Dated snapshots ("claude-sonnet-4-5-20250929") resolve to
// their family via lookupModel.
const CATALOG: Record<ProviderName, CatalogEntry[]> = {
  anthropic: [
    { model: "claude-sonnet-4-5", name: "Claude Sonnet 4.5", contextWindow: 200 * K, maxOutputTokens: 64 * K, supportsImages: true },
    { model: "claude-sonnet-4-6", name: "Claude Sonnet 4.6", contextWindow: 200 * K, maxOutputTokens: 64 * K, supportsImages: true },
    { model: "claude-opus-4-6", name: "Claude Opus 4.6", contextWindow: 200 * K, maxOutputTokens: 128 * K, supportsImages: true },
    { model: "claude-opus-4-5", name: "Claude Opus 4.5", contextWindow: 200 * K, maxOutputTokens: 64 * K, supportsImages: true },
    { model: "claude-opus-4-1", name: "Claude Opus 4.1", contextWindow: 200 * K, maxOutputTokens: 32 * K, supportsImages: true },
    { model: "claude-haiku-4-5", name: "Claude Haiku 4.5", contextWindow: 200 * K, maxOutputTokens: 64 * K, supportsImages: true },
    { model: "claude-sonnet-4-0", name: "Claude Sonnet 4", contextWindow: 200 * K, maxOutputTokens: 64 * K, supportsImages: true },
    { model: "claude-opus-4-0", name: "Claude Opus 4", contextWindow: 200 * K, maxOutputTokens: 32 * K, supportsImages: true },
  ],
  openai: [
    { model: "gpt-5", name: "GPT-5", contextWindow: 400 * K, maxOutputTokens: 128 * K, supportsImages: true },
    { model: "gpt-5-mini", name: "GPT-5 mini", contextWindow: 400 * K, maxOutputTokens: 128 * K, supportsImages: true },
    { model: "gpt-5-nano", name: "GPT-5 nano", contextWindow: 400 * K, maxOutputTokens: 128 * K, supportsImages: true },
    { model: "gpt-4.1", name: "GPT-4.1", contextWindow: 1_047_576, maxOutputTokens: 32_768, supportsImages: true },
    { model: "gpt-4.1-mini", name: "GPT-4.1 mini", contextWindow: 1_047_576, maxOutputTokens: 32_768, supportsImages: true },
    { model: "gpt-4o", name: "GPT-4o", contextWindow: 128 * K, maxOutputTokens: 16_384, supportsImages: true },
    { model: "o3", name: "o3", contextWindow: 200 * K, maxOutputTokens: 100 * K, supportsImages: true },
    { model: "o4-mini", name: "o4-mini", contextWindow: 200 * K, maxOutputTokens: 100 * K, supportsImages: true },
  ],
  "openai-compatible": [],
  ollama: [],
};

const ALIASES: Record<string, string> = { "claude-sonnet-4": "claude-sonnet-4-0", "claude-opus-4": "claude-opus-4-0" };

/** Default `max_tokens` when neither the caller nor config sets one (capped by the model's maximum). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 16_384;

export function catalogModels(provider: ProviderName): readonly CatalogEntry[] {
  return CATALOG[provider];
}

/** Known limits of `model`, or undefined. Accepts dated snapshots and "-latest" names of catalog families. */
export function findModel(provider: ProviderName, model: string): CatalogEntry | undefined {
  const entries = CATALOG[provider];
  const family = model.replace(/-(\d{8}|\d{4}-\d{2}-\d{2}|latest)$/, "");
  const names = [model, family, ALIASES[family]].filter((n): n is string => n !== undefined);
  for (const name of names) {
    const hit = entries.find((entry) => entry.model === name);
    if (hit) return hit;
  }
  return undefined;
}

/** Limits of `model`, with conservative defaults for models the catalog does not know. */
export function lookupModel(provider: ProviderName, model: string): ModelInfo {
  const hit = findModel(provider, model);
  if (hit) return { name: hit.name, contextWindow: hit.contextWindow, maxOutputTokens: hit.maxOutputTokens, supportsImages: hit.supportsImages };
  const anthropic = provider === "anthropic";
  return {
    name: model,
    contextWindow: anthropic ? 200 * K : 128 * K,
    maxOutputTokens: anthropic ? 64 * K : DEFAULT_MAX_OUTPUT_TOKENS,
    supportsImages: provider === "anthropic" || provider === "openai",
  };
}
