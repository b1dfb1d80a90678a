import type { CommonClientOptions } from "../wire/client-options.js";
import { envValue, type EnvLike, type ProviderSettings } from "../catalog/credentials.js";
import { ModelConfigError } from "../errors.js";
import { joinUrl } from "../wire/http.js";
import { createOpenAiChatClient } from "./openai-chat.js";
import type { ModelClient } from "../types.js";

// Azure OpenAI: Chat Completions at a deployment's own path, authenticated by `api-key` or an Entra ID
// bearer token. `azure:<deployment>`; the deployment decides the model.

/** The GA data-plane version with streaming usage (`stream_options`). */
export const DEFAULT_AZURE_API_VERSION = "2024-10-21";

export type AzureClientOptions = CommonClientOptions & {
  settings: ProviderSettings;
  env: EnvLike;
  maxOutputTokens?: number;
};

export function createAzureClient(options: AzureClientOptions): ModelClient {
  const { settings, model: deployment } = options;
  if (!settings.baseUrl) {
    throw new ModelConfigError(
      "missing_credentials",
      `azure:${deployment} needs the resource endpoint: set AZURE_OPENAI_ENDPOINT (https://<resource>.openai.azure.com) or AZURE_OPENAI_RESOURCE`,
      "azure",
    );
  }
  if (!settings.apiKey && !settings.token) {
    throw new ModelConfigError(
      "missing_credentials",
      `azure:${deployment} needs AZURE_OPENAI_API_KEY or an Entra ID token in AZURE_OPENAI_AD_TOKEN (or run deep-acp login)`,
      "azure",
    );
  }
  const apiVersion = envValue(options.env, "AZURE_OPENAI_API_VERSION") ?? DEFAULT_AZURE_API_VERSION;
  const headers: Record<string, string> = settings.apiKey
    ? { "api-key": settings.apiKey }
    : { authorization: `Bearer ${settings.token}` };
  const authHint = settings.apiKey
    ? `check ${settings.sources.apiKey === "stored" ? "the key stored by deep-acp login" : "AZURE_OPENAI_API_KEY"}`
    : "the Entra ID token in AZURE_OPENAI_AD_TOKEN may have expired: refresh it with `az account get-access-token --resource https://cognitiveservices.azure.com`";
  return createOpenAiChatClient({
    ...options,
    provider: "azure",
    url: azureChatUrl(settings.baseUrl, deployment, apiVersion),
    headers,
    authHint,
  });
}

/**
 * The classic deployment path with `api-version`, or for an endpoint that already ends in `/openai/v1`
 * (Azure's version-less v1 API) plain `<endpoint>/chat/completions`, the deployment going in `model`.
 */
export function azureChatUrl(endpoint: string, deployment: string, apiVersion: string): string {
  const base = endpoint.replace(/\/+$/, "");
  if (/\/openai\/v1$/.test(base)) return joinUrl(base, "chat/completions");
  const root = base.replace(/\/openai$/, "");
  return `${joinUrl(root, `openai/deployments/${encodeURIComponent(deployment)}/chat/completions`)}?api-version=${encodeURIComponent(apiVersion)}`;
}
