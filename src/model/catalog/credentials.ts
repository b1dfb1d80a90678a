import { modelVar, PROVIDERS } from "./providers.js";
import { authHeaderOf, routableProtocol, type ProviderRoute } from "./routing.js";
import type { ProviderName } from "../types.js";

export type StoredProvider = { apiKey?: string; baseUrl?: string; model?: string };
/** Provider credentials stored by `deep-acp login` in ~/.deepagents/.state/credentials.json (read elsewhere). */
export type StoredCredentials = Partial<Record<ProviderName, StoredProvider>>;

export type EnvLike = Readonly<Record<string, string | undefined>>;

/** A provider's settings, environment variables over stored credentials, with where each came from. */
export type ProviderSettings = {
  apiKey?: string;
  /** Entra ID bearer token (Azure only). */
  token?: string;
  baseUrl?: string;
  /** Model to use when nothing else names one (openai-compatible, local servers, Azure deployment). */
  model?: string;
  /** The variable each value came from, "stored" for credentials.json, "editor" for providers/set. */
  sources: { apiKey?: string; token?: string; baseUrl?: string; model?: string };
  /** Headers the editor's gateway needs (providers/set), sent with every request. */
  headers?: Readonly<Record<string, string>>;
  /** The gateway's headers carry the credential: no key of ours is sent. */
  gatewayAuth?: boolean;
  /** True when the environment configures the provider (as opposed to stored credentials). */
  fromEnv: boolean;
  /** True when the provider has what it needs to be called without --model naming it explicitly. */
  usable: boolean;
};

/** Empty and whitespace-only variables count as unset, as shells make them easy to leave behind. */
export function envValue(env: EnvLike, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function firstEnv(env: EnvLike, names: readonly string[]): { value: string; name: string } | undefined {
  for (const name of names) {
    const value = envValue(env, name);
    if (value !== undefined) return { value, name };
  }
  return undefined;
}

export function providerSettings(
  provider: ProviderName,
  env: EnvLike,
  credentials: StoredCredentials = {},
  route?: ProviderRoute,
): ProviderSettings {
  const info = PROVIDERS[provider];
  // The Responses API uses the OpenAI account's key.
  const stored = credentials[provider] ?? (provider === "openai-responses" ? credentials.openai : undefined);
  const sources: ProviderSettings["sources"] = {};
  const out: ProviderSettings = { sources, fromEnv: false, usable: false };
  const key = firstEnv(env, info.keyVars);
  if (key) [out.apiKey, sources.apiKey] = [key.value, key.name];
  else if (nonEmpty(stored?.apiKey)) [out.apiKey, sources.apiKey] = [nonEmpty(stored?.apiKey), "stored"];
  const base = info.baseUrlVar ? firstEnv(env, [info.baseUrlVar]) : undefined;
  if (base) [out.baseUrl, sources.baseUrl] = [base.value, base.name];
  else if (nonEmpty(stored?.baseUrl)) [out.baseUrl, sources.baseUrl] = [nonEmpty(stored?.baseUrl), "stored"];
  const modelName = modelVar(info);
  const model = modelName ? firstEnv(env, [modelName]) : undefined;
  if (model) [out.model, sources.model] = [model.value, model.name];
  else if (nonEmpty(stored?.model)) [out.model, sources.model] = [nonEmpty(stored?.model), "stored"];

  switch (info.detect) {
    case "key":
      out.fromEnv = key !== undefined;
      out.usable = out.apiKey !== undefined;
      break;
    case "url":
      out.fromEnv = base !== undefined;
      // Servers that need no key count as configured only when someone pointed us at them.
      out.usable = base !== undefined || stored !== undefined;
      break;
    case "explicit":
      out.fromEnv = key !== undefined;
      out.usable = false;
      break;
  }
  if (provider === "azure") applyAzure(env, out);
  const protocol = routableProtocol(provider);
  if (route && protocol) {
    // The editor's gateway replaces the endpoint; its headers may bring the credential.
    [out.baseUrl, sources.baseUrl] = [route.baseUrl, "editor"];
    out.headers = route.headers;
    out.gatewayAuth = authHeaderOf(protocol, route.headers) !== undefined;
    out.usable = true;
  }
  return out;
}

/** Azure: the endpoint may be given as a resource name, and an Entra token replaces the key. */
function applyAzure(env: EnvLike, out: ProviderSettings): void {
  const token = envValue(env, "AZURE_OPENAI_AD_TOKEN");
  if (token) [out.token, out.sources.token] = [token, "AZURE_OPENAI_AD_TOKEN"];
  const resource = envValue(env, "AZURE_OPENAI_RESOURCE");
  if (!out.baseUrl && resource)
    [out.baseUrl, out.sources.baseUrl] = [`https://${resource}.openai.azure.com`, "AZURE_OPENAI_RESOURCE"];
  out.fromEnv ||= token !== undefined;
  out.usable = out.baseUrl !== undefined && (out.apiKey !== undefined || out.token !== undefined);
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
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
