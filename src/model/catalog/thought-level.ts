import { lookupModel, type CatalogOverrides } from "./catalog.js";
import { parseModelSpec } from "./spec.js";

// The `thought_level` session option: how hard the model thinks before answering. Anthropic (also
// on Bedrock) takes an extended-thinking token budget and can think not at all; OpenAI reasoning
// models take `reasoning.effort` and always reason a little. Other providers get no option rather
// than one that does nothing.

export type ThoughtLevel = "off" | "low" | "medium" | "high";

export const THOUGHT_LEVEL_NAMES: Readonly<Record<ThoughtLevel, string>> = {
  off: "Off",
  low: "Low",
  medium: "Medium",
  high: "High",
};

/** Anthropic thinking budgets; below the default 16,384 max_tokens so the answer keeps room. */
const ANTHROPIC_BUDGETS: Readonly<Record<Exclude<ThoughtLevel, "off">, number>> = {
  low: 2048,
  medium: 6144,
  high: 12_288,
};

export type ThoughtSupport = { levels: ThoughtLevel[]; defaultLevel: ThoughtLevel };

/** The levels `spec` accepts, or undefined when its provider has no such setting. */
export function thoughtSupport(spec: string, catalog?: CatalogOverrides): ThoughtSupport | undefined {
  let provider: string;
  let model: string;
  try {
    ({ provider, model } = parseModelSpec(spec));
  } catch {
    return undefined;
  }
  if (provider === "anthropic" || (provider === "bedrock" && /anthropic|claude/i.test(model))) {
    // Claude 3.5 and older have no extended thinking.
    if (/claude-3-(5-|haiku|opus|sonnet)|claude-3\.5|claude-instant|claude-2/i.test(model)) return undefined;
    return { levels: ["off", "low", "medium", "high"], defaultLevel: "off" };
  }
  if (provider === "openai" || provider === "openai-responses") {
    if (!lookupModel(provider, model, catalog).reasoning) return undefined;
    return { levels: ["low", "medium", "high"], defaultLevel: "medium" };
  }
  return undefined;
}

/** Client options for a level (spread into CreateModelClientOptions). */
export function thoughtOptions(level: ThoughtLevel | undefined): {
  thinkingBudgetTokens?: number;
  reasoningEffort?: "low" | "medium" | "high";
} {
  if (!level || level === "off") return {};
  return { thinkingBudgetTokens: ANTHROPIC_BUDGETS[level], reasoningEffort: level };
}

export function isThoughtLevel(value: unknown): value is ThoughtLevel {
  return value === "off" || value === "low" || value === "medium" || value === "high";
}
