import type { ModelInfo } from "../catalog/catalog.js";
import { ollamaApiBase, type EnvLike, type ProviderSettings } from "../catalog/credentials.js";
import { PROVIDERS } from "../catalog/providers.js";
import { ModelConfigError } from "../errors.js";
import type { ModelClient, ProviderName } from "../types.js";
import type { OpenAiChatProvider } from "../providers/openai-chat.js";
import type { CommonClientOptions } from "../wire/client-options.js";

// One entry per provider: how to import its client module lazily and how to build the client from
// it. Each import() runs only when a client for that provider is built, so start-up loads no
// provider module or SDK (the build turns each into its own file under dist/lazy/model/providers/).

/** What a provider's entry builds its client from, resolved once by createModelClient. */
export type ClientRequest<P extends ProviderName = ProviderName> = {
  provider: P;
  model: string;
  info: ModelInfo;
  settings: ProviderSettings;
  env: EnvLike;
  common: CommonClientOptions;
  /** The output cap of a hosted API: the option, else min(16384, the model's maximum). */
  hostedMax: number;
  /** The maxOutputTokens option as given (local servers get no cap unless asked or known). */
  maxOutputTokens: number | undefined;
  thinking: { thinkingBudgetTokens?: number };
  reasoningEffort: "low" | "medium" | "high" | undefined;
};

export type ProviderLoader<P extends ProviderName = ProviderName> = {
  build(request: ClientRequest<P>): Promise<ModelClient>;
};

/**
 * An entry of the table: `check` throws for what is missing before anything is imported, `load`
 * imports the module (it may pick one by the request), `build` makes the client with it.
 */
function lazyProvider<P extends ProviderName, M>(entry: {
  check?: (request: ClientRequest<P>) => void;
  load: (request: ClientRequest<P>) => Promise<M>;
  build: (module: M, request: ClientRequest<P>) => ModelClient | Promise<ModelClient>;
}): ProviderLoader<P> {
  return {
    async build(request) {
      entry.check?.(request);
      return entry.build(await entry.load(request), request);
    },
  };
}

/** A key unless an editor's gateway authenticates the requests (providers/set). */
const keyUnlessGateway = (request: ClientRequest): string => (request.settings.gatewayAuth ? "" : requireKey(request));

// The Responses API exists only at OpenAI itself; a custom base URL may be a proxy that lacks it.
const usesResponsesApi = ({ provider, info, settings }: ClientRequest): boolean =>
  provider === "openai-responses" || (info.reasoning && settings.baseUrl === undefined);

type OpenAiModule =
  | { responses: typeof import("../providers/openai-responses.js"); chat?: undefined }
  | { chat: typeof import("../providers/openai-chat.js"); responses?: undefined };

const OPENAI = lazyProvider<"openai" | "openai-responses", OpenAiModule>({
  check: keyUnlessGateway,
  load: async (request) =>
    usesResponsesApi(request)
      ? { responses: await import("../providers/openai-responses.js") }
      : { chat: await import("../providers/openai-chat.js") },
  build: (module, request) => {
    const { provider, settings, common, hostedMax } = request;
    const apiKey = keyUnlessGateway(request);
    if (module.responses) {
      return module.responses.createOpenAiResponsesClient({
        ...common,
        provider,
        apiKey,
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: hostedMax,
        reasoning: request.info.reasoning,
        ...(request.reasoningEffort && { reasoningEffort: request.reasoningEffort }),
      });
    }
    // Only "openai" gets here: "openai-responses" always takes the Responses API.
    return module.chat.createOpenAiChatClient({
      ...common,
      provider: "openai",
      ...(apiKey && { apiKey }),
      ...(settings.headers && { headers: { ...settings.headers } }),
      ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
      maxOutputTokens: hostedMax,
    });
  },
});

const GOOGLE_MODULE = () => import("../providers/google.js");

type ChatCompatibleProvider = Exclude<OpenAiChatProvider, "openai">;

/** Chat Completions servers and presets: local servers, OpenRouter, Groq, Mistral, ... */
const CHAT_COMPATIBLE = lazyProvider<ChatCompatibleProvider, typeof import("../providers/openai-chat.js")>({
  check: (request) => {
    const { provider, model, settings } = request;
    if (PROVIDERS[provider].keyRequired && !settings.gatewayAuth) requireKey(request);
    if (provider === "openai-compatible" && !settings.baseUrl) {
      throw missingCredentials(
        provider,
        `openai-compatible:${model} needs a server URL: set OPENAI_COMPATIBLE_BASE_URL`,
      );
    }
  },
  load: () => import("../providers/openai-chat.js"),
  build: ({ createOpenAiChatClient }, { provider, settings, common, hostedMax, info, maxOutputTokens }) => {
    const baseUrl = provider === "ollama" && settings.baseUrl ? ollamaApiBase(settings.baseUrl) : settings.baseUrl;
    // Local servers know their own limits (small local context windows reject large caps).
    const outputCap = maxOutputTokens ?? (info.known ? hostedMax : undefined);
    return createOpenAiChatClient({
      ...common,
      provider,
      ...(settings.apiKey && !settings.gatewayAuth && { apiKey: settings.apiKey }),
      ...(baseUrl && { baseUrl }),
      ...(outputCap !== undefined && { maxOutputTokens: outputCap }),
      ...withHeaders(presetExtras(provider), settings.headers),
    });
  },
});

export const PROVIDER_LOADERS: { readonly [P in ProviderName]: ProviderLoader<P> } = {
  anthropic: lazyProvider({
    check: keyUnlessGateway,
    load: () => import("../providers/anthropic.js"),
    build: ({ createAnthropicClient }, request) => {
      const { settings } = request;
      return createAnthropicClient({
        ...request.common,
        apiKey: keyUnlessGateway(request),
        ...(settings.headers && { headers: { ...settings.headers } }),
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: request.hostedMax,
        ...request.thinking,
      });
    },
  }),
  openai: OPENAI,
  "openai-responses": OPENAI,
  azure: lazyProvider({
    load: () => import("../providers/azure.js"),
    build: ({ createAzureClient }, { common, settings, env, hostedMax }) =>
      createAzureClient({ ...common, settings, env, maxOutputTokens: hostedMax }),
  }),
  google: lazyProvider({
    load: GOOGLE_MODULE,
    build: ({ createGoogleClient }, request) => {
      const { settings } = request;
      return createGoogleClient({
        ...request.common,
        auth: { kind: "api-key", apiKey: requireKey(request) },
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: request.hostedMax,
        reasoning: request.info.reasoning,
      });
    },
  }),
  vertex: lazyProvider({
    load: async () => ({ ...(await GOOGLE_MODULE()), ...(await import("../providers/vertex-auth.js")) }),
    build: async ({ createGoogleClient, vertexAuth }, { env, model, settings, common, hostedMax, info }) =>
      createGoogleClient({
        ...common,
        auth: await vertexAuth(env, model),
        ...(settings.baseUrl && { baseUrl: settings.baseUrl }),
        maxOutputTokens: hostedMax,
        reasoning: info.reasoning,
      }),
  }),
  bedrock: lazyProvider({
    load: () => import("../providers/bedrock.js"),
    build: ({ createBedrockClient }, { common, env, hostedMax, thinking }) =>
      createBedrockClient({ ...common, env, maxOutputTokens: hostedMax, ...thinking }),
  }),
  "openai-compatible": CHAT_COMPATIBLE,
  ollama: CHAT_COMPATIBLE,
  openrouter: CHAT_COMPATIBLE,
  groq: CHAT_COMPATIBLE,
  mistral: CHAT_COMPATIBLE,
  deepseek: CHAT_COMPATIBLE,
  together: CHAT_COMPATIBLE,
  lmstudio: CHAT_COMPATIBLE,
  vllm: CHAT_COMPATIBLE,
};

function presetExtras(provider: ProviderName): { headers?: Record<string, string>; streamUsage?: boolean } {
  if (provider === "openrouter")
    return { headers: { "x-title": "deep-acp", "http-referer": "https://www.npmjs.com/package/deep-acp" } };
  // Mistral sends usage on its last chunk unasked and rejects fields it does not know.
  if (provider === "mistral") return { streamUsage: false };
  return {};
}

function withHeaders<T extends { headers?: Record<string, string> }>(
  extras: T,
  headers: Readonly<Record<string, string>> | undefined,
): T {
  return headers ? { ...extras, headers: { ...extras.headers, ...headers } } : extras;
}

/** The loader of `provider`, typed for it. */
export function providerLoader<P extends ProviderName>(provider: P): ProviderLoader<P> {
  return PROVIDER_LOADERS[provider];
}

function requireKey({ provider, model, settings }: ClientRequest): string {
  if (settings.apiKey) return settings.apiKey;
  const vars = PROVIDERS[provider].keyVars;
  throw missingCredentials(
    provider,
    `${provider}:${model} needs an API key: set ${vars.join(" or ")} (or run deep-acp login)`,
  );
}

export function missingCredentials(provider: ProviderName, message: string): ModelConfigError {
  return new ModelConfigError("missing_credentials", message, provider);
}
