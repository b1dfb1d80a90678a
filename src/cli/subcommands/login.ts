import { access, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname } from "node:path";
import { userPaths } from "../../config/paths.js";
import { envValue, type EnvLike, type StoredCredentials } from "../../model/catalog/credentials.js";
import { PROVIDERS as PROVIDER_INFO } from "../../model/catalog/providers.js";
import type { ProviderName } from "../../model/types.js";
import { ensurePrivateDir, writeFileAtomic } from "../../util/atomic-file.js";
import { errorMessage } from "../../util/errors.js";
import { readJsonObjectFile } from "../../util/json-file.js";
import type { CliOptions } from "../args/args.js";
import { createTerminalPrompter, LoginCancelled, type LoginPrompter } from "./terminal-prompter.js";

/** Providers whose key `deep-acp login` stores (numbers 1-3 are kept stable for scripts). */
type Provider =
  | "anthropic"
  | "openai"
  | "openai-compatible"
  | "google"
  | "azure"
  | "openrouter"
  | "groq"
  | "mistral"
  | "deepseek"
  | "together";

const PROVIDERS: ReadonlyArray<{ name: Provider; label: string }> = [
  { name: "anthropic", label: "Anthropic (Claude)" },
  { name: "openai", label: "OpenAI" },
  { name: "openai-compatible", label: "an OpenAI-compatible server (vLLM, LM Studio, llama.cpp, OpenRouter, ...)" },
  { name: "google", label: "Google Gemini API" },
  { name: "azure", label: "Azure OpenAI" },
  { name: "openrouter", label: "OpenRouter" },
  { name: "groq", label: "Groq" },
  { name: "mistral", label: "Mistral" },
  { name: "deepseek", label: "DeepSeek" },
  { name: "together", label: "Together AI" },
];

/** Providers that sign in with their own tools; login says how instead of storing anything. */
const OWN_LOGIN: Partial<Record<ProviderName, string>> = {
  bedrock:
    "AWS Bedrock uses the standard AWS credential chain: run `aws configure`, `aws sso login --profile NAME` (then set AWS_PROFILE), or set AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY; set AWS_REGION. Nothing is stored by deep-acp.",
  vertex:
    "Vertex AI uses Google application-default credentials: run `gcloud auth application-default login` (or set GOOGLE_APPLICATION_CREDENTIALS to a service-account key), and set GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION. Nothing is stored by deep-acp.",
  ollama: "Ollama needs no key: set OLLAMA_BASE_URL if it is not at http://127.0.0.1:11434.",
  lmstudio: "LM Studio needs no key: set LMSTUDIO_BASE_URL if it is not at http://127.0.0.1:1234/v1.",
  vllm: "vLLM: set VLLM_BASE_URL (and VLLM_API_KEY if the server was started with --api-key).",
  "openai-responses": "openai-responses uses the OpenAI key: choose openai.",
};

/** The variable that overrides what login stores. */
function keyVar(provider: Provider): string {
  return provider === "openai-compatible" ? "OPENAI_COMPATIBLE_BASE_URL" : PROVIDER_INFO[provider].keyVars[0]!;
}

export type LoginOptions = {
  /** Default: createTerminalPrompter() on stdin/stderr. */
  prompter?: LoginPrompter;
  /** Default: process.env. Decides the base URLs for the key check and which variables override the stored key. */
  env?: EnvLike;
  /** Default: os.homedir(). */
  home?: string;
  /** Default: globalThis.fetch. */
  fetch?: typeof fetch;
  /** How long the key check may take; default 10 000 ms. */
  checkTimeoutMs?: number;
};

/** `~/.deepagents/.state/credentials.json`, the file the model service reads keys from. */
export function credentialsPath(home: string = homedir()): string {
  return userPaths("agent", home).credentialsFile;
}

/**
 * `deep-acp login`: pick a provider, type the key (not echoed on a terminal), check it with one cheap
 * request, store it 0600 next to the other providers' keys. Also the ACP terminal-auth command, so it
 * exits 0 only when a key was stored.
 */
export async function runLogin(cli: CliOptions, options: LoginOptions = {}): Promise<number> {
  const prompter = options.prompter ?? createTerminalPrompter();
  try {
    if (cli.command.length > 1) {
      prompter.say(`deep-acp login takes no arguments (got "${cli.command.slice(1).join(" ")}").\n`);
      return 2;
    }
    return await login(prompter, options);
  } catch (error) {
    if (error instanceof LoginCancelled) {
      prompter.say("Cancelled; nothing stored.\n");
      return 130;
    }
    throw error;
  } finally {
    prompter.close();
  }
}

async function login(prompter: LoginPrompter, options: LoginOptions): Promise<number> {
  const env = options.env ?? process.env;
  const path = credentialsPath(options.home);
  const current = await readStoredCredentials(path);
  if ("error" in current) {
    prompter.say(
      `${path} is not a valid credentials file (${current.error}). Fix or delete it, then run deep-acp login again.\n`,
    );
    return 1;
  }

  prompter.say(
    `Store a model API key for deep-acp. Which provider?\n${PROVIDERS.map((p, i) => `  ${String(i + 1).padStart(2)}) ${p.name.padEnd(18)} ${p.label}\n`).join("")}` +
      `  (bedrock, vertex, ollama, lmstudio, vllm: type the name to see how they sign in)\n`,
  );
  const answer = await prompter.ask("Provider [1]: ");
  if (answer === undefined) return nothingStored(prompter, "no provider chosen");
  const own = OWN_LOGIN[answer.trim().toLowerCase() as ProviderName];
  if (own) {
    prompter.say(`${own}\n`);
    return 1;
  }
  const provider = pickProvider(answer.trim() || "1");
  if (!provider) {
    prompter.say(
      `Unknown provider "${answer.trim()}": answer 1-${PROVIDERS.length} or a name (${PROVIDERS.map((p) => p.name).join(", ")}).\n`,
    );
    return 1;
  }

  const entry =
    provider === "openai-compatible"
      ? await askCompatible(prompter, options, current.credentials)
      : provider === "azure"
        ? await askAzure(prompter, env, current.credentials)
        : await askKey(prompter, options, env, provider, current.credentials);
  if (typeof entry === "number") return entry;

  const next: StoredCredentials = { ...current.credentials, ...entry };
  await ensurePrivateDir(dirname(path));
  await writeFileAtomic(path, JSON.stringify(next, null, 2) + "\n");
  prompter.say(`Saved to ${path} (readable only by you).\n`);
  const override = envValue(env, keyVar(provider));
  if (override !== undefined)
    prompter.say(`Note: ${keyVar(provider)} is set in this environment and takes precedence over what was stored.\n`);
  return 0;
}

async function askKey(
  prompter: LoginPrompter,
  options: LoginOptions,
  env: EnvLike,
  provider: Exclude<Provider, "openai-compatible" | "azure">,
  stored: StoredCredentials,
): Promise<StoredCredentials | number> {
  const info = PROVIDER_INFO[provider];
  const apiKey = (await prompter.ask(`${info.label} API key (input hidden): `, { secret: true }))?.trim();
  if (!apiKey) return nothingStored(prompter, "no key entered");
  const base =
    (info.baseUrlVar ? envValue(env, info.baseUrlVar) : undefined) ?? stored[provider]?.baseUrl ?? info.defaultBaseUrl!;
  const url =
    provider === "anthropic"
      ? anthropicModelsUrl(base)
      : provider === "google"
        ? geminiModelsUrl(base)
        : joinUrl(base, "models");
  const headers: Record<string, string> =
    provider === "anthropic"
      ? { "x-api-key": apiKey, "anthropic-version": "2023-06-01" }
      : provider === "google"
        ? { "x-goog-api-key": apiKey }
        : { authorization: `Bearer ${apiKey}` };
  const check = await checkKey(url, headers, options);
  if (!reportCheck(prompter, check, url)) return 1;
  // A base URL stored earlier (e.g. a proxy) stays with the new key.
  return { [provider]: { ...stored[provider], apiKey } };
}

/** Azure: the resource endpoint and its key (the key is checked on first use: listing needs an api-version per resource). */
async function askAzure(
  prompter: LoginPrompter,
  env: EnvLike,
  stored: StoredCredentials,
): Promise<StoredCredentials | number> {
  const previous = stored.azure?.baseUrl ?? envValue(env, "AZURE_OPENAI_ENDPOINT");
  const typed = (
    await prompter.ask(`Resource endpoint [${previous ?? "e.g. https://my-resource.openai.azure.com"}]: `)
  )?.trim();
  if (typed === undefined) return nothingStored(prompter, "no endpoint given");
  const baseUrl = typed || previous;
  if (!baseUrl || !isHttpUrl(baseUrl))
    return nothingStored(prompter, baseUrl ? `"${baseUrl}" is not an http(s) URL` : "no endpoint given");
  const apiKey = (await prompter.ask("Azure OpenAI API key (input hidden): ", { secret: true }))?.trim();
  if (!apiKey) return nothingStored(prompter, "no key entered");
  const model =
    (await prompter.ask(`Deployment name${stored.azure?.model ? ` [${stored.azure.model}]` : ""}: `))?.trim() ||
    stored.azure?.model;
  if (!model)
    prompter.say(
      "No deployment named: start deep-acp with --model azure:<deployment> or set AZURE_OPENAI_DEPLOYMENT.\n",
    );
  return { azure: { baseUrl, apiKey, ...(model ? { model } : {}) } };
}

async function askCompatible(
  prompter: LoginPrompter,
  options: LoginOptions,
  stored: StoredCredentials,
): Promise<StoredCredentials | number> {
  const previous = stored["openai-compatible"];
  const hint = previous?.baseUrl ?? "e.g. http://127.0.0.1:8000/v1";
  const typed = (await prompter.ask(`Server URL (the one ending in /v1) [${hint}]: `))?.trim();
  if (typed === undefined) return nothingStored(prompter, "no server URL given");
  const baseUrl = typed || previous?.baseUrl;
  if (!baseUrl || !isHttpUrl(baseUrl))
    return nothingStored(prompter, baseUrl ? `"${baseUrl}" is not an http(s) URL` : "no server URL given");
  const apiKey = (
    await prompter.ask("API key (input hidden; empty if the server needs none): ", { secret: true })
  )?.trim();
  const url = joinUrl(baseUrl, "models");
  const check = await checkKey(url, apiKey ? { authorization: `Bearer ${apiKey}` } : {}, options);
  if (!reportCheck(prompter, check, url, Boolean(apiKey))) return 1;
  const fallback = previous?.model ?? (check.status === "ok" ? check.models[0] : undefined);
  const models =
    check.status === "ok" && check.models.length > 0
      ? ` (the server lists ${check.models.slice(0, 5).join(", ")}${check.models.length > 5 ? ", ..." : ""})`
      : "";
  const model = (await prompter.ask(`Model${models}${fallback ? ` [${fallback}]` : ""}: `))?.trim() || fallback;
  if (!model)
    prompter.say(
      "No model named: start deep-acp with --model openai-compatible:<model> or set OPENAI_COMPATIBLE_MODEL.\n",
    );
  return { "openai-compatible": { baseUrl, ...(apiKey ? { apiKey } : {}), ...(model ? { model } : {}) } };
}

/** `deep-acp logout`: deletes every stored key. Keys in environment variables are not affected. */
export async function runLogout(
  cli: CliOptions,
  options: Pick<LoginOptions, "home" | "env"> & { say?: (text: string) => void } = {},
): Promise<number> {
  const say = options.say ?? ((text: string) => void process.stderr.write(text));
  if (cli.command.length > 1) {
    say(`deep-acp logout takes no arguments (got "${cli.command.slice(1).join(" ")}").\n`);
    return 2;
  }
  const path = credentialsPath(options.home);
  const existed = await access(path).then(
    () => true,
    () => false,
  );
  await rm(path, { force: true });
  say(existed ? `Removed ${path}.\n` : `No stored keys (${path} does not exist).\n`);
  const env = options.env ?? process.env;
  const stillSet = PROVIDERS.map((p) => keyVar(p.name)).filter(
    (name, i, all) => all.indexOf(name) === i && envValue(env, name) !== undefined,
  );
  if (stillSet.length > 0) say(`Still set in this environment: ${stillSet.join(", ")}.\n`);
  return 0;
}

function pickProvider(answer: string): Provider | undefined {
  const byNumber = PROVIDERS[Number(answer) - 1];
  if (/^\d+$/.test(answer) && byNumber) return byNumber.name;
  return PROVIDERS.find((p) => p.name === answer.toLowerCase())?.name;
}

function nothingStored(prompter: LoginPrompter, why: string): number {
  prompter.say(`Nothing stored: ${why}.\n`);
  return 1;
}

async function readStoredCredentials(path: string): Promise<{ credentials: StoredCredentials } | { error: string }> {
  const found = await readJsonObjectFile(path);
  if (found.state === "invalid") return { error: found.reason };
  return { credentials: found.state === "ok" ? (found.value as StoredCredentials) : {} };
}

type CheckResult =
  { status: "ok"; models: string[] } | { status: "rejected"; detail: string } | { status: "unchecked"; detail: string };

/** One authenticated GET of the model list: the cheapest request every provider API answers. */
async function checkKey(url: string, headers: Record<string, string>, options: LoginOptions): Promise<CheckResult> {
  const fetchImpl = options.fetch ?? globalThis.fetch;
  try {
    const response = await fetchImpl(url, { headers, signal: AbortSignal.timeout(options.checkTimeoutMs ?? 10_000) });
    if (response.status === 401 || response.status === 403)
      return { status: "rejected", detail: `HTTP ${response.status}` };
    if (!response.ok) return { status: "unchecked", detail: `HTTP ${response.status}` };
    const body = (await response.json().catch(() => undefined)) as { data?: Array<{ id?: unknown }> } | undefined;
    const models = Array.isArray(body?.data)
      ? body.data.map((m) => m?.id).filter((id): id is string => typeof id === "string")
      : [];
    return { status: "ok", models };
  } catch (error) {
    return { status: "unchecked", detail: errorMessage(error) };
  }
}

/** Tells the user what the check found; false when the key must not be stored. */
function reportCheck(prompter: LoginPrompter, check: CheckResult, url: string, hasKey = true): boolean {
  if (check.status === "rejected") {
    prompter.say(`${url} rejected the key (${check.detail}); nothing stored.\n`);
    return false;
  }
  prompter.say(
    check.status === "ok"
      ? hasKey
        ? "The key works.\n"
        : "The server answers.\n"
      : `Could not check the key at ${url} (${check.detail}); storing it anyway.\n`,
  );
  return true;
}

function anthropicModelsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? `${trimmed}/models` : `${trimmed}/v1/models`;
}

function geminiModelsUrl(base: string): string {
  const trimmed = base.replace(/\/+$/, "");
  return /\/v1(beta)?$/.test(trimmed) ? `${trimmed}/models` : `${trimmed}/v1beta/models`;
}

function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, "")}/${path}`;
}

function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
