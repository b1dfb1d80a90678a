import type { ModelPricing } from "../types.js";

// Published limits and list prices (USD per million tokens) of the models each vendor sells, as of
// late 2025. Prices change: config.toml [model.catalog."provider:model"] overrides any field, and a
// price we are not sure of is left out (its cost then shows as unknown, never as a wrong number).

export type CatalogEntry = {
  model: string;
  /** Human name for pickers, e.g. "Claude Sonnet 4.5". */
  name: string;
  contextWindow: number;
  /** Largest output the model accepts per request. */
  maxOutputTokens: number;
  supportsImages: boolean;
  /** Takes reasoning settings (OpenAI `reasoning`, Gemini `thinkingConfig`). */
  reasoning?: boolean;
  pricing?: ModelPricing;
};

export type Vendor = "anthropic" | "openai" | "google" | "amazon" | "deepseek" | "groq" | "mistral" | "together";

const K = 1000;
const M = 1_048_576;

function price(input: number, output: number, cacheRead?: number, cacheWrite?: number): ModelPricing {
  return {
    input,
    output,
    ...(cacheRead !== undefined && { cacheRead }),
    ...(cacheWrite !== undefined && { cacheWrite }),
  };
}

/** Anthropic: cache writes (5-minute TTL) cost 1.25x input, cache reads 0.1x. */
function claude(input: number, output: number): ModelPricing {
  return price(input, output, input / 10, input * 1.25);
}

function entry(
  model: string,
  name: string,
  contextWindow: number,
  maxOutputTokens: number,
  pricing?: ModelPricing,
  extra: Partial<CatalogEntry> = {},
): CatalogEntry {
  return { model, name, contextWindow, maxOutputTokens, supportsImages: true, ...(pricing && { pricing }), ...extra };
}

export const VENDOR_CATALOG: Record<Vendor, CatalogEntry[]> = {
  anthropic: [
    entry("claude-sonnet-4-5", "Claude Sonnet 4.5", 200 * K, 64 * K, claude(3, 15)),
    entry("claude-sonnet-4-6", "Claude Sonnet 4.6", 200 * K, 64 * K, claude(3, 15)),
    entry("claude-opus-4-6", "Claude Opus 4.6", 200 * K, 128 * K, claude(5, 25)),
    entry("claude-opus-4-5", "Claude Opus 4.5", 200 * K, 64 * K, claude(5, 25)),
    entry("claude-opus-4-1", "Claude Opus 4.1", 200 * K, 32 * K, claude(15, 75)),
    entry("claude-haiku-4-5", "Claude Haiku 4.5", 200 * K, 64 * K, claude(1, 5)),
    entry("claude-sonnet-4-0", "Claude Sonnet 4", 200 * K, 64 * K, claude(3, 15)),
    entry("claude-opus-4-0", "Claude Opus 4", 200 * K, 32 * K, claude(15, 75)),
    entry("claude-3-7-sonnet", "Claude Sonnet 3.7", 200 * K, 64 * K, claude(3, 15)),
    entry("claude-3-5-haiku", "Claude Haiku 3.5", 200 * K, 8192, claude(0.8, 4)),
  ],
  // OpenAI bills cached input at a discount and cache writes not at all.
  openai: [
    entry("gpt-5", "GPT-5", 400 * K, 128 * K, price(1.25, 10, 0.125, 0), { reasoning: true }),
    entry("gpt-5.1", "GPT-5.1", 400 * K, 128 * K, price(1.25, 10, 0.125, 0), { reasoning: true }),
    entry("gpt-5-codex", "GPT-5 Codex", 400 * K, 128 * K, price(1.25, 10, 0.125, 0), { reasoning: true }),
    entry("gpt-5-mini", "GPT-5 mini", 400 * K, 128 * K, price(0.25, 2, 0.025, 0), { reasoning: true }),
    entry("gpt-5-nano", "GPT-5 nano", 400 * K, 128 * K, price(0.05, 0.4, 0.005, 0), { reasoning: true }),
    entry("gpt-4.1", "GPT-4.1", 1_047_576, 32_768, price(2, 8, 0.5, 0)),
    entry("gpt-4.1-mini", "GPT-4.1 mini", 1_047_576, 32_768, price(0.4, 1.6, 0.1, 0)),
    entry("gpt-4.1-nano", "GPT-4.1 nano", 1_047_576, 32_768, price(0.1, 0.4, 0.025, 0)),
    entry("gpt-4o", "GPT-4o", 128 * K, 16_384, price(2.5, 10, 1.25, 0)),
    entry("gpt-4o-mini", "GPT-4o mini", 128 * K, 16_384, price(0.15, 0.6, 0.075, 0)),
    entry("o3", "o3", 200 * K, 100 * K, price(2, 8, 0.5, 0), { reasoning: true }),
    entry("o3-mini", "o3-mini", 200 * K, 100 * K, price(1.1, 4.4, 0.55, 0), { reasoning: true, supportsImages: false }),
    entry("o4-mini", "o4-mini", 200 * K, 100 * K, price(1.1, 4.4, 0.275, 0), { reasoning: true }),
  ],
  // Gemini: prompts over 200K tokens are billed at the long-context rate; implicit cache reads are discounted.
  google: [
    entry(
      "gemini-3-pro-preview",
      "Gemini 3 Pro (preview)",
      M,
      65_536,
      {
        ...price(2, 12, 0.2),
        longContext: { aboveTokens: 200 * K, ...price(4, 18, 0.4) },
      },
      { reasoning: true },
    ),
    entry(
      "gemini-2.5-pro",
      "Gemini 2.5 Pro",
      M,
      65_536,
      {
        ...price(1.25, 10, 0.125),
        longContext: { aboveTokens: 200 * K, ...price(2.5, 15, 0.25) },
      },
      { reasoning: true },
    ),
    entry("gemini-2.5-flash", "Gemini 2.5 Flash", M, 65_536, price(0.3, 2.5, 0.03), { reasoning: true }),
    entry("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", M, 65_536, price(0.1, 0.4, 0.01), { reasoning: true }),
    entry("gemini-2.0-flash", "Gemini 2.0 Flash", M, 8192, price(0.1, 0.4, 0.025)),
  ],
  amazon: [
    entry("nova-pro", "Amazon Nova Pro", 300 * K, 5000, price(0.8, 3.2)),
    entry("nova-lite", "Amazon Nova Lite", 300 * K, 5000, price(0.06, 0.24)),
    entry("nova-micro", "Amazon Nova Micro", 128 * K, 5000, price(0.035, 0.14), { supportsImages: false }),
  ],
  deepseek: [
    entry("deepseek-chat", "DeepSeek V3.2", 128 * K, 8 * K, price(0.28, 0.42, 0.028), { supportsImages: false }),
    entry("deepseek-reasoner", "DeepSeek V3.2 (thinking)", 128 * K, 64 * K, price(0.28, 0.42, 0.028), {
      supportsImages: false,
    }),
  ],
  groq: [
    entry("llama-3.3-70b-versatile", "Llama 3.3 70B", 131_072, 32_768, price(0.59, 0.79), { supportsImages: false }),
    entry("llama-3.1-8b-instant", "Llama 3.1 8B", 131_072, 131_072, price(0.05, 0.08), { supportsImages: false }),
    entry("openai/gpt-oss-120b", "gpt-oss 120B", 131_072, 65_536, price(0.15, 0.75), { supportsImages: false }),
    entry("openai/gpt-oss-20b", "gpt-oss 20B", 131_072, 65_536, undefined, { supportsImages: false }),
  ],
  // Mistral's "-latest" aliases move between generations with different prices: limits only.
  mistral: [
    entry("mistral-large-latest", "Mistral Large", 128 * K, 32 * K, undefined, { supportsImages: false }),
    entry("mistral-medium-latest", "Mistral Medium", 128 * K, 32 * K),
    entry("mistral-small-latest", "Mistral Small", 128 * K, 32 * K),
    entry("codestral-latest", "Codestral", 256 * K, 32 * K, undefined, { supportsImages: false }),
    entry("devstral-medium-latest", "Devstral Medium", 128 * K, 32 * K, undefined, { supportsImages: false }),
  ],
  together: [
    entry("meta-llama/Llama-3.3-70B-Instruct-Turbo", "Llama 3.3 70B Turbo", 131_072, 32_768, price(0.88, 0.88), {
      supportsImages: false,
    }),
    entry("deepseek-ai/DeepSeek-V3", "DeepSeek V3", 131_072, 8 * K, undefined, { supportsImages: false }),
    entry("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "Qwen3 Coder 480B", 256 * K, 64 * K, undefined, {
      supportsImages: false,
    }),
  ],
};

export const CATALOG_ALIASES: Record<string, string> = {
  "claude-sonnet-4": "claude-sonnet-4-0",
  "claude-opus-4": "claude-opus-4-0",
};

/**
 * Cloud resellers (Bedrock, Vertex) charge the list price only on their global endpoints for these
 * models; regional endpoints cost more, so we show no price there rather than a low one.
 */
export const REGIONAL_PREMIUM_MODELS = new Set([
  "claude-sonnet-4-5",
  "claude-sonnet-4-6",
  "claude-opus-4-5",
  "claude-opus-4-6",
  "claude-haiku-4-5",
]);
