import { catalogModels, lookupModel, type CatalogOverrides } from "../catalog/catalog.js";
import { providerSettings, type EnvLike, type StoredCredentials } from "../catalog/credentials.js";
import { modelVar, PROVIDERS } from "../catalog/providers.js";
import { NO_ROUTING, type ProviderRouting } from "../catalog/routing.js";
import { formatModelSpec, parseModelSpec, type ModelSpec } from "../catalog/spec.js";
import { PROVIDER_NAMES, type ProviderName } from "../types.js";

export { formatModelSpec, parseModelSpec, type ModelSpec } from "../catalog/spec.js";
export { ModelConfigError, type ModelConfigErrorCode } from "../errors.js";
export { createModelClient, type CreateModelClientOptions } from "./create-client.js";
export type { EnvLike, StoredCredentials } from "../catalog/credentials.js";
export {
  lookupModel,
  modelPricing,
  usageCostUsd,
  type CatalogOverrides,
  type ModelInfo,
  type ModelPricing,
} from "../catalog/catalog.js";

export type ResolveModelSpecInput = {
  /** `--model` value. */
  flag?: string;
  env: EnvLike;
  /** `[model].default` of ~/.deepagents/config.toml. */
  configDefault?: string;
  credentials?: StoredCredentials;
  /** The editor's providers/set and providers/disable. Default: none. */
  routing?: ProviderRouting;
};

export type ResolvedModelSpec = ModelSpec & {
  /** Canonical `provider:model`. */
  spec: string;
  /** Where the choice came from, for `deep-acp doctor`. */
  source: string;
};

/** Providers picked by their credentials alone, in this order (explicit-only ones are left out). */
const DETECT_ORDER: readonly ProviderName[] = PROVIDER_NAMES.filter((name) => PROVIDERS[name].detect !== "explicit");

/** Picks the model: --model > DEEP_ACP_MODEL > config default > first provider with credentials. Never throws. */
export function resolveModelSpec(input: ResolveModelSpecInput): ResolvedModelSpec | { error: string } {
  const explicit: Array<[string | undefined, string]> = [
    [input.flag, "--model flag"],
    [input.env.DEEP_ACP_MODEL, "DEEP_ACP_MODEL"],
    [input.configDefault, "~/.deepagents/config.toml [model].default"],
  ];
  const routing = input.routing ?? NO_ROUTING;
  for (const [value, source] of explicit) {
    if (value === undefined || value.trim() === "") continue;
    let spec: ModelSpec;
    try {
      spec = parseModelSpec(value);
    } catch (error) {
      return { error: `${source}: ${(error as Error).message}` };
    }
    if (routing.disabled.has(spec.provider))
      return { error: `${source} names ${spec.provider}:, which the editor turned off (providers/disable)` };
    return withSpec(spec, source);
  }
  // Environment first, then stored credentials, each in provider order.
  const auto: Array<[ProviderName, EnvLike, StoredCredentials, "env" | "stored"]> = [];
  for (const provider of DETECT_ORDER) auto.push([provider, input.env, {}, "env"]);
  for (const provider of DETECT_ORDER) auto.push([provider, {}, input.credentials ?? {}, "stored"]);
  for (const [provider, env, credentials, where] of auto) {
    if (routing.disabled.has(provider)) continue;
    const info = PROVIDERS[provider];
    // Of the local servers only openai-compatible is picked from the environment (by its URL variable);
    // those with a default URL (ollama, LM Studio, vLLM) only from stored credentials or --model.
    if (where === "env" && info.detect === "url" && info.defaultBaseUrl !== undefined) continue;
    const settings = providerSettings(provider, env, credentials, routing.routes.get(provider));
    if (!settings.usable) continue;
    const source =
      where === "stored"
        ? `stored credentials (${provider})`
        : ((provider === "azure"
            ? (settings.sources.apiKey ?? settings.sources.token)
            : info.detect === "url"
              ? settings.sources.baseUrl
              : settings.sources.apiKey) ?? provider);
    const model = info.defaultModel ?? settings.model;
    if (model === undefined) {
      const modelName = modelVar(info);
      const orEnv = modelName && where === "env" ? ` or set ${modelName}` : "";
      return { error: `${source} is set but no model is named: pass --model ${provider}:<model>${orEnv}` };
    }
    return withSpec({ provider, model }, source);
  }
  return {
    error:
      "No model configured: set ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY or another provider's key (see `deep-acp doctor`), " +
      "set OPENAI_COMPATIBLE_BASE_URL and OPENAI_COMPATIBLE_MODEL, run `deep-acp login`, or pass --model provider:model " +
      `(providers: ${PROVIDER_NAMES.join(", ")}).`,
  };
}

function withSpec(spec: ModelSpec, source: string): ResolvedModelSpec {
  return { ...spec, spec: formatModelSpec(spec), source };
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
  routing?: ProviderRouting;
};

/** Entries for the editor's model picker: catalog models of configured providers, config extras, the current model. */
export function listModelChoices(input: ListModelChoicesInput): ModelChoice[] {
  const specs: ModelSpec[] = [];
  const routing = input.routing ?? NO_ROUTING;
  for (const provider of PROVIDER_NAMES) {
    if (routing.disabled.has(provider)) continue;
    const settings = providerSettings(provider, input.env, input.credentials, routing.routes.get(provider));
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
    const context =
      info.contextWindow >= 1_000_000
        ? `${(info.contextWindow / 1_000_000).toFixed(1)}M`
        : `${Math.round(info.contextWindow / 1000)}K`;
    const price = info.pricing
      ? ` · $${formatPrice(info.pricing.input)}/$${formatPrice(info.pricing.output)} per M tokens`
      : "";
    choices.push({
      spec: id,
      name: info.name,
      description: `${PROVIDERS[spec.provider].label} · ${context} context${price}`,
    });
  }
  return choices;
}

function formatPrice(usd: number): string {
  return Number.isInteger(usd) ? String(usd) : String(Number(usd.toFixed(3)));
}
