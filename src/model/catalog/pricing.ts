import type { ModelPricing, TokenPrices, Usage } from "../types.js";

export type { ModelPricing, TokenPrices } from "../types.js";

/**
 * Cost of one request's usage in US dollars, or undefined when it cannot be known: no pricing, or
 * cache tokens whose price the catalog does not have. Never a guess.
 */
export function usageCostUsd(usage: Usage, pricing: ModelPricing | undefined): number | undefined {
  if (!pricing) return undefined;
  const cacheRead = usage.cacheReadTokens ?? 0;
  const cacheWrite = usage.cacheWriteTokens ?? 0;
  const prompt = usage.inputTokens + cacheRead + cacheWrite;
  const prices: TokenPrices =
    pricing.longContext && prompt > pricing.longContext.aboveTokens ? pricing.longContext : pricing;
  if (cacheRead > 0 && prices.cacheRead === undefined) return undefined;
  if (cacheWrite > 0 && prices.cacheWrite === undefined) return undefined;
  const micro =
    usage.inputTokens * prices.input +
    usage.outputTokens * prices.output +
    cacheRead * (prices.cacheRead ?? 0) +
    cacheWrite * (prices.cacheWrite ?? 0);
  return micro / 1_000_000;
}
