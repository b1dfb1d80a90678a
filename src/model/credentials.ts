import type { ProviderName } from "./types.js";

/** Provider credentials stored by `deep-acp` in ~/.deepagents/.state/credentials.json (read elsewhere). */
export type StoredCredentials = {
  anthropic?: { apiKey: string; baseUrl?: string };
  openai?: { apiKey: string; baseUrl?: string };
  /** `model` lets auto-detection pick this provider without --model. */
  "openai-compatible"?: { apiKey?: string; baseUrl: string; model?: string };
  ollama?: { baseUrl?: string; model?: string };
};

export type EnvLike = Readonly<Record<string, string | undefined>>;

/** Where a provider's settings came from, per field. Environment variables win over stored credentials. */
export type ProviderSettings = {
  apiKey?: string;
  baseUrl?: string;
  /** Model to use when nothing else names one (openai-compatible / ollama only). */
  model?: string;
  /** True when the environment configures the provider (as opposed to stored credentials). */
  fromEnv: boolean;
  /** True when the provider has what it needs to be called (a key, or a base URL for local servers). */
  usable: boolean;
};

export const ENV_VARS = {
  anthropic: { key: "ANTHROPIC_API_KEY", baseUrl: "ANTHROPIC_BASE_URL" },
  openai: { key: "OPENAI_API_KEY", baseUrl: "OPENAI_BASE_URL" },
  "openai-compatible": { key: "OPENAI_COMPATIBLE_API_KEY", baseUrl: "OPENAI_COMPATIBLE_BASE_URL", model: "OPENAI_COMPATIBLE_MODEL" },
  ollama: { baseUrl: "OLLAMA_BASE_URL" },
} as const;

/** Empty and whitespace-only variables count as unset, as shells make them easy to leave behind. */
export function envValue(env: EnvLike, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

export function providerSettings(provider: ProviderName, env: EnvLike, credentials: StoredCredentials = {}): ProviderSettings {
  switch (provider) {
    case "anthropic":
    case "openai": {
      const vars = ENV_VARS[provider];
      const stored = credentials[provider];
      const envKey = envValue(env, vars.key);
      const apiKey = envKey ?? nonEmpty(stored?.apiKey);
      const baseUrl = envValue(env, vars.baseUrl) ?? nonEmpty(stored?.baseUrl);
      return { ...optional({ apiKey, baseUrl }), fromEnv: envKey !== undefined, usable: apiKey !== undefined };
    }
    case "openai-compatible": {
      const vars = ENV_VARS[provider];
      const stored = credentials[provider];
      const envBase = envValue(env, vars.baseUrl);
      const baseUrl = envBase ?? nonEmpty(stored?.baseUrl);
      const apiKey = envValue(env, vars.key) ?? nonEmpty(stored?.apiKey);
      const model = envValue(env, vars.model) ?? nonEmpty(stored?.model);
      return { ...optional({ apiKey, baseUrl, model }), fromEnv: envBase !== undefined, usable: baseUrl !== undefined };
    }
    case "ollama": {
      const envBase = envValue(env, ENV_VARS.ollama.baseUrl);
      const stored = credentials.ollama;
      const baseUrl = envBase ?? nonEmpty(stored?.baseUrl);
      const model = nonEmpty(stored?.model);
      // Ollama needs no key; it counts as configured only when someone pointed us at it.
      return { ...optional({ baseUrl, model }), fromEnv: envBase !== undefined, usable: envBase !== undefined || stored !== undefined };
    }
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function optional<T extends Record<string, string | undefined>>(fields: T): Partial<Record<keyof T, string>> {
  const out: Partial<Record<keyof T, string>> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key as keyof T] = value;
  return out;
}

/** Ollama users often give the server root (`http://host:11434`); its OpenAI API lives under /v1. */
export function ollamaApiBase(baseUrl: string): string {
  try {
    const url = new URL(baseUrl);
    if (url.pathname === "/" || url.pathname === "") return `${baseUrl.replace(/\/+$/, "")}/v1`;
  } catch {
    // not a URL: let the request fail with the server's own message
  }
  return baseUrl;
}
