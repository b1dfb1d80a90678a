import { describe, expect, it } from "vitest";
import { findModel, lookupModel, modelPricing, usageCostUsd } from "../../../src/model/catalog/catalog.js";
import { parseConfigObject } from "../../../src/config/config-schema.js";

describe("model catalogue", () => {
  it("knows context windows and list prices of each vendor's models", () => {
    expect(lookupModel("anthropic", "claude-sonnet-4-5-20250929")).toMatchObject({
      contextWindow: 200_000,
      pricing: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
      known: true,
    });
    expect(modelPricing("openai", "gpt-5")).toEqual({ input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: 0 });
    expect(lookupModel("openai", "o3").reasoning).toBe(true);
    expect(lookupModel("google", "gemini-2.5-pro")).toMatchObject({ contextWindow: 1_048_576, reasoning: true });
    expect(modelPricing("deepseek", "deepseek-chat")).toMatchObject({ input: 0.28, output: 0.42 });
  });

  it("maps reseller model names to the vendor's entry", () => {
    expect(findModel("openrouter", "anthropic/claude-sonnet-4.5")?.model).toBe("claude-sonnet-4-5");
    expect(modelPricing("openrouter", "anthropic/claude-sonnet-4.5")).toMatchObject({ input: 3, output: 15 });
    expect(findModel("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")?.model).toBe("claude-sonnet-4-5");
    expect(findModel("bedrock", "amazon.nova-pro-v1:0")?.model).toBe("nova-pro");
    expect(findModel("vertex", "gemini-2.5-flash")?.model).toBe("gemini-2.5-flash");
  });

  it("shows no price where the reseller's price is not the list price", () => {
    // Bedrock's regional endpoints for recent Claude models cost more than the global ones.
    expect(modelPricing("bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0")).toBeUndefined();
    expect(modelPricing("bedrock", "global.anthropic.claude-sonnet-4-5-20250929-v1:0")).toMatchObject({ input: 3 });
    expect(modelPricing("bedrock", "anthropic.claude-3-7-sonnet-20250219-v1:0")).toMatchObject({ input: 3 });
    // An Azure deployment's price depends on its deployment type.
    expect(lookupModel("azure", "gpt-4o")).toMatchObject({ contextWindow: 128_000, known: true });
    expect(modelPricing("azure", "gpt-4o")).toBeUndefined();
  });

  it("gives unknown models conservative limits and no price", () => {
    expect(lookupModel("anthropic", "claude-future-9")).toMatchObject({ contextWindow: 200_000, known: false });
    expect(lookupModel("openai", "gpt-future")).toMatchObject({
      contextWindow: 128_000,
      maxOutputTokens: 16_384,
      known: false,
    });
    expect(lookupModel("ollama", "qwen3")).toMatchObject({ contextWindow: 128_000, supportsImages: false });
    for (const [provider, model] of [
      ["ollama", "qwen3"],
      ["openai", "gpt-future"],
      ["openrouter", "meta-llama/llama-4"],
    ] as const) {
      expect(modelPricing(provider, model)).toBeUndefined();
    }
  });

  it("applies config overrides, including prices for unknown models", () => {
    const catalog = {
      "ollama:qwen3": { context_window: 32_768, input_price: 0, output_price: 0 },
      "anthropic:claude-sonnet-4-5": { input_price: 2.5 },
      "openai:gpt-future": { input_price: 1 },
    };
    expect(lookupModel("ollama", "qwen3", catalog)).toMatchObject({
      contextWindow: 32_768,
      pricing: { input: 0, output: 0 },
      known: true,
    });
    expect(modelPricing("anthropic", "claude-sonnet-4-5", catalog)).toEqual({
      input: 2.5,
      output: 15,
      cacheRead: 0.3,
      cacheWrite: 3.75,
    });
    // Half a price is no price.
    expect(modelPricing("openai", "gpt-future", catalog)).toBeUndefined();
  });

  it("reads overrides from config.toml's [model.catalog]", () => {
    const { config, diagnostics } = parseConfigObject(
      {
        model: {
          default: "ollama:qwen3",
          catalog: { "ollama:qwen3": { context_window: 32_768, input_price: 0.1, output_price: 0.2 } },
        },
      },
      "config.toml",
    );
    expect(diagnostics).toEqual([]);
    expect(lookupModel("ollama", "qwen3", config.model.catalog)).toMatchObject({
      contextWindow: 32_768,
      pricing: { input: 0.1, output: 0.2 },
    });
  });
});

describe("usageCostUsd", () => {
  it("prices input, output and cache tokens separately", () => {
    const pricing = modelPricing("anthropic", "claude-sonnet-4-5");
    const cost = usageCostUsd(
      { inputTokens: 1_000_000, outputTokens: 100_000, cacheReadTokens: 1_000_000, cacheWriteTokens: 100_000 },
      pricing,
    );
    expect(cost).toBeCloseTo(3 + 1.5 + 0.3 + 0.375, 9);
  });

  it("switches to the long-context tier above its threshold", () => {
    const pricing = modelPricing("google", "gemini-2.5-pro");
    expect(usageCostUsd({ inputTokens: 100_000, outputTokens: 0 }, pricing)).toBeCloseTo(0.125, 9);
    expect(usageCostUsd({ inputTokens: 300_000, outputTokens: 0 }, pricing)).toBeCloseTo(0.75, 9);
  });

  it("is undefined rather than wrong", () => {
    expect(usageCostUsd({ inputTokens: 10, outputTokens: 10 }, undefined)).toBeUndefined();
    // Nova has no catalogued cache price, so a usage with cache reads has no known cost.
    expect(
      usageCostUsd(
        { inputTokens: 10, outputTokens: 10, cacheReadTokens: 5 },
        modelPricing("bedrock", "amazon.nova-pro-v1:0"),
      ),
    ).toBeUndefined();
  });
});
