import type { ProviderName } from "../types.js";

// What each provider is and which environment variables it reads: the one table that credential
// resolution, `deep-acp doctor`, `deep-acp login` and the README agree on. No client code here.

export type ProviderInfo = {
  /** Human name, e.g. "Google Gemini". */
  label: string;
  /** The wire API, for doctor and the README. */
  api: string;
  /** API key variables, first set wins. */
  keyVars: readonly string[];
  /** Base-URL override variable. */
  baseUrlVar?: string;
  defaultBaseUrl?: string;
  /** Other variables it reads (model, project, region, ...). */
  otherVars?: readonly string[];
  /**
   * Credentials besides `keyVars` (Entra tokens, cloud keys, session tokens): with the key variables,
   * what is kept out of commands, hooks and MCP servers (util/secret-env.ts; a test keeps them equal).
   */
  credentialVars?: readonly string[];
  /**
   * How it becomes usable without --model: "key" (a key variable or stored key is set), "url" (a base
   * URL is set or stored: local servers), "explicit" (only when named: ambient cloud credentials are
   * too common to pick a provider by).
   */
  detect: "key" | "url" | "explicit";
  /** Needs a key to be called at all. */
  keyRequired: boolean;
  /** Model used when the provider is picked by its key alone. */
  defaultModel?: string;
  /**
   * The protocol its requests can be rerouted in (ACP providers/set): the Anthropic Messages client
   * and the Chat Completions clients take a base URL and extra headers. Gemini, Vertex, Azure and
   * Bedrock sign or address requests their own way and are not rerouted (they can still be turned off).
   */
  reroutable?: "anthropic" | "openai";
  /** Files it reads besides ~/.deepagents/.state/credentials.json. */
  files?: readonly string[];
};

export const PROVIDERS: Readonly<Record<ProviderName, ProviderInfo>> = {
  anthropic: {
    label: "Anthropic",
    api: "Anthropic Messages, streaming",
    keyVars: ["ANTHROPIC_API_KEY"],
    baseUrlVar: "ANTHROPIC_BASE_URL",
    defaultBaseUrl: "https://api.anthropic.com",
    detect: "key",
    keyRequired: true,
    defaultModel: "claude-sonnet-4-5",
    reroutable: "anthropic",
  },
  openai: {
    label: "OpenAI",
    api: "Chat Completions; the Responses API for reasoning models at the official endpoint",
    keyVars: ["OPENAI_API_KEY"],
    baseUrlVar: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    detect: "key",
    keyRequired: true,
    defaultModel: "gpt-5",
    reroutable: "openai",
  },
  "openai-responses": {
    label: "OpenAI (Responses API)",
    api: "OpenAI Responses API (reasoning summaries as thoughts, encrypted reasoning carried across turns)",
    keyVars: ["OPENAI_API_KEY"],
    baseUrlVar: "OPENAI_BASE_URL",
    defaultBaseUrl: "https://api.openai.com/v1",
    detect: "explicit",
    keyRequired: true,
  },
  "openai-compatible": {
    label: "OpenAI-compatible",
    api: "Chat Completions, streaming (vLLM, LM Studio, llama.cpp server, OpenRouter, ...)",
    keyVars: ["OPENAI_COMPATIBLE_API_KEY"],
    baseUrlVar: "OPENAI_COMPATIBLE_BASE_URL",
    otherVars: ["OPENAI_COMPATIBLE_MODEL"],
    detect: "url",
    keyRequired: false,
    reroutable: "openai",
  },
  ollama: {
    label: "Ollama",
    api: "Chat Completions",
    keyVars: [],
    baseUrlVar: "OLLAMA_BASE_URL",
    defaultBaseUrl: "http://127.0.0.1:11434/v1",
    detect: "url",
    keyRequired: false,
    reroutable: "openai",
  },
  google: {
    label: "Google Gemini",
    api: "Gemini API streamGenerateContent (SSE)",
    keyVars: ["GOOGLE_API_KEY", "GEMINI_API_KEY"],
    baseUrlVar: "GOOGLE_BASE_URL",
    defaultBaseUrl: "https://generativelanguage.googleapis.com",
    detect: "key",
    keyRequired: true,
    defaultModel: "gemini-2.5-pro",
  },
  vertex: {
    label: "Google Vertex AI",
    api: "Vertex AI streamGenerateContent (Gemini models)",
    keyVars: [],
    baseUrlVar: "GOOGLE_VERTEX_BASE_URL",
    otherVars: ["GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_APPLICATION_CREDENTIALS"],
    credentialVars: ["GOOGLE_APPLICATION_CREDENTIALS"],
    detect: "explicit",
    keyRequired: false,
    files: ["~/.config/gcloud/application_default_credentials.json (application-default credentials)"],
  },
  bedrock: {
    label: "AWS Bedrock",
    api: "Bedrock Runtime ConverseStream (AWS SDK, SigV4)",
    keyVars: [],
    baseUrlVar: "AWS_ENDPOINT_URL_BEDROCK_RUNTIME",
    otherVars: ["AWS_REGION", "AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"],
    credentialVars: ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_BEARER_TOKEN_BEDROCK"],
    detect: "explicit",
    keyRequired: false,
    files: ["~/.aws/credentials", "~/.aws/config (profiles, SSO)", "~/.aws/sso/cache/"],
  },
  azure: {
    label: "Azure OpenAI",
    api: "Azure OpenAI Chat Completions (deployments, api-version)",
    keyVars: ["AZURE_OPENAI_API_KEY"],
    baseUrlVar: "AZURE_OPENAI_ENDPOINT",
    otherVars: [
      "AZURE_OPENAI_AD_TOKEN",
      "AZURE_OPENAI_RESOURCE",
      "AZURE_OPENAI_DEPLOYMENT",
      "AZURE_OPENAI_API_VERSION",
    ],
    credentialVars: ["AZURE_OPENAI_AD_TOKEN"],
    detect: "key",
    keyRequired: true,
  },
  openrouter: preset(
    "OpenRouter",
    "OPENROUTER_API_KEY",
    "OPENROUTER_BASE_URL",
    "https://openrouter.ai/api/v1",
    "anthropic/claude-sonnet-4.5",
  ),
  groq: preset("Groq", "GROQ_API_KEY", "GROQ_BASE_URL", "https://api.groq.com/openai/v1", "openai/gpt-oss-120b"),
  mistral: preset(
    "Mistral",
    "MISTRAL_API_KEY",
    "MISTRAL_BASE_URL",
    "https://api.mistral.ai/v1",
    "mistral-medium-latest",
  ),
  deepseek: preset("DeepSeek", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "https://api.deepseek.com/v1", "deepseek-chat"),
  together: preset(
    "Together AI",
    "TOGETHER_API_KEY",
    "TOGETHER_BASE_URL",
    "https://api.together.xyz/v1",
    "Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8",
  ),
  lmstudio: {
    label: "LM Studio",
    api: "Chat Completions (local server)",
    keyVars: [],
    baseUrlVar: "LMSTUDIO_BASE_URL",
    defaultBaseUrl: "http://127.0.0.1:1234/v1",
    detect: "url",
    keyRequired: false,
    reroutable: "openai",
  },
  vllm: {
    label: "vLLM",
    api: "Chat Completions (vLLM server)",
    keyVars: ["VLLM_API_KEY"],
    baseUrlVar: "VLLM_BASE_URL",
    defaultBaseUrl: "http://127.0.0.1:8000/v1",
    detect: "url",
    keyRequired: false,
    reroutable: "openai",
  },
};

function preset(
  label: string,
  keyVar: string,
  baseUrlVar: string,
  defaultBaseUrl: string,
  defaultModel: string,
): ProviderInfo {
  return {
    label,
    api: "Chat Completions preset",
    keyVars: [keyVar],
    baseUrlVar,
    defaultBaseUrl,
    detect: "key",
    keyRequired: true,
    defaultModel,
    reroutable: "openai",
  };
}

/** The variable naming the provider's model (OPENAI_COMPATIBLE_MODEL, AZURE_OPENAI_DEPLOYMENT), if it reads one. */
export function modelVar(info: ProviderInfo): string | undefined {
  return info.otherVars?.find((name) => name.endsWith("_MODEL") || name.endsWith("_DEPLOYMENT"));
}

/** Every variable any provider reads, for `--help` and doctor. */
export function allProviderVars(): string[] {
  const out = new Set<string>(["DEEP_ACP_MODEL"]);
  for (const info of Object.values(PROVIDERS)) {
    for (const name of [...info.keyVars, ...(info.baseUrlVar ? [info.baseUrlVar] : []), ...(info.otherVars ?? [])])
      out.add(name);
  }
  return [...out];
}
