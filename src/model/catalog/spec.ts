import { findModel } from "./catalog.js";
import { ModelConfigError } from "../errors.js";
import { PROVIDER_NAMES, type ProviderName } from "../types.js";

export type ModelSpec = { provider: ProviderName; model: string };

const EXAMPLE = "anthropic:claude-sonnet-4-5";

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDER_NAMES as readonly string[]).includes(value);
}

export function formatModelSpec(spec: ModelSpec): string {
  return `${spec.provider}:${spec.model}`;
}

/**
 * Parses `provider:model`. The model part may itself contain colons (`ollama:llama3.1:8b`). A bare
 * name of a catalog model (`claude-sonnet-4-5`) gets its provider. Throws ModelConfigError("invalid_spec").
 */
export function parseModelSpec(text: string): ModelSpec {
  const trimmed = text.trim();
  const providers = PROVIDER_NAMES.join(", ");
  if (trimmed === "") throw invalid(`Model is empty; write provider:model, e.g. ${EXAMPLE}`);
  const colon = trimmed.indexOf(":");
  if (colon === -1) {
    const provider = PROVIDER_NAMES.find((name) => findModel(name, trimmed) !== undefined);
    if (provider) return { provider, model: trimmed };
    throw invalid(
      `Model "${trimmed}" has no provider; write provider:model (providers: ${providers}), e.g. ${EXAMPLE}`,
    );
  }
  const provider = trimmed.slice(0, colon).trim();
  const model = trimmed.slice(colon + 1).trim();
  if (!isProviderName(provider)) {
    throw invalid(
      `Unknown model provider "${provider}" in "${trimmed}"; expected one of ${providers} (for a local Ollama model write ollama:${trimmed})`,
    );
  }
  if (model === "") throw invalid(`Model spec "${trimmed}" names no model; e.g. ${provider}:<model>`);
  return { provider, model };
}

function invalid(message: string): ModelConfigError {
  return new ModelConfigError("invalid_spec", message);
}
