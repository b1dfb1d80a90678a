import { stat } from "node:fs/promises";
import { join } from "node:path";
import { ENV_VARS, envValue, providerSettings, type EnvLike, type StoredCredentials } from "../model/credentials.js";
import { createModelClient, ModelConfigError, resolveModelSpec, type ResolvedModelSpec } from "../model/resolve.js";
import { PROVIDER_NAMES, type ProviderName } from "../model/types.js";
import type { Diagnostic } from "../util/diagnostics.js";
import type { DoctorFile, DoctorModelFacts } from "./doctor-types.js";
import { readJsonObjectFile } from "../util/json-file.js";

/** Every variable that influences model choice, in the order `deep-acp --help` lists them. */
export const MODEL_ENV_VARS = [
  "DEEP_ACP_MODEL",
  ENV_VARS.anthropic.key,
  ENV_VARS.anthropic.baseUrl,
  ENV_VARS.openai.key,
  ENV_VARS.openai.baseUrl,
  ENV_VARS["openai-compatible"].baseUrl,
  ENV_VARS["openai-compatible"].key,
  ENV_VARS["openai-compatible"].model,
  ENV_VARS.ollama.baseUrl,
] as const;

export type ModelFactsOptions = {
  env: EnvLike;
  /** `--model`. */
  flag?: string;
  /** config.toml `[model].default`. */
  configDefault?: string;
  /** `~/.deepagents/.state`; its credentials.json is read. */
  stateDir: string;
};

/** Resolves the default model exactly as a session would, and checks a client could be built for it (no request is sent). */
export async function collectModelFacts(options: ModelFactsOptions): Promise<DoctorModelFacts> {
  const stored = await readCredentials(join(options.stateDir, "credentials.json"));
  const env = MODEL_ENV_VARS.filter((name) => envValue(options.env, name) !== undefined);
  const base = { credentialsFile: stored.file, env, diagnostics: stored.diagnostics };
  const resolved = resolveModelSpec({ flag: options.flag, env: options.env, configDefault: options.configDefault, credentials: stored.credentials });
  if ("error" in resolved) return failed(base, resolved.error);
  try {
    await createModelClient(resolved, { env: options.env, credentials: stored.credentials });
  } catch (error) {
    if (!(error instanceof ModelConfigError)) throw error;
    return { ...failed(base, `${resolved.spec} (from ${resolved.source}): ${error.message}`), spec: resolved.spec, source: resolved.source };
  }
  return { ok: true, spec: resolved.spec, source: resolved.source, ...describeCredential(resolved, options.env, stored), ...base };
}

function failed(base: Pick<DoctorModelFacts, "credentialsFile" | "env" | "diagnostics">, error: string): DoctorModelFacts {
  return { ...base, ok: false, error, diagnostics: [...base.diagnostics, { severity: "error", source: "model", message: error }] };
}

function describeCredential(resolved: ResolvedModelSpec, env: EnvLike, stored: StoredFile): Pick<DoctorModelFacts, "credential" | "endpoint"> {
  const provider = resolved.provider;
  const settings = providerSettings(provider, env, stored.credentials);
  const storedHere = `stored credentials (${stored.file.path})`;
  const out: Pick<DoctorModelFacts, "credential" | "endpoint"> = {};
  if (provider === "anthropic" || provider === "openai") {
    const vars = ENV_VARS[provider];
    out.credential = envValue(env, vars.key) ? `${vars.key} (environment)` : storedHere;
    if (settings.baseUrl) out.endpoint = `${settings.baseUrl} (${envValue(env, vars.baseUrl) ? vars.baseUrl : storedHere})`;
    return out;
  }
  const urlVar = ENV_VARS[provider].baseUrl;
  const fromEnv = envValue(env, urlVar) !== undefined;
  if (provider === "openai-compatible") {
    const keyVar = ENV_VARS[provider].key;
    out.credential = envValue(env, keyVar) ? `${keyVar} (environment)` : stored.credentials[provider]?.apiKey ? storedHere : "no API key (optional for this provider)";
  } else {
    out.credential = "none needed";
  }
  out.endpoint = settings.baseUrl ? `${settings.baseUrl} (${fromEnv ? urlVar : storedHere})` : "http://127.0.0.1:11434/v1 (default)";
  return out;
}

type StoredFile = { file: DoctorFile & { providers: string[] }; credentials: StoredCredentials; diagnostics: Diagnostic[] };

/** Unlike the session, which quietly ignores a broken file, doctor says why the stored key is not used. */
async function readCredentials(path: string): Promise<StoredFile> {
  const found = await readJsonObjectFile(path);
  if (found.state === "missing") return { file: { path, state: "missing", providers: [] }, credentials: {}, diagnostics: [] };
  if (found.state === "invalid") return invalid(path, `${found.reason} (run deep-acp login again)`);
  const parsed = found.value;
  const diagnostics: Diagnostic[] = [];
  const providers = Object.keys(parsed).filter((key): key is ProviderName => (PROVIDER_NAMES as readonly string[]).includes(key));
  for (const key of Object.keys(parsed)) {
    if (!providers.includes(key as ProviderName)) diagnostics.push({ severity: "warning", source: path, message: `unknown provider "${key}" (ignored)` });
  }
  const mode = await stat(path).then((info) => info.mode & 0o777, () => undefined);
  if (mode !== undefined && (mode & 0o077) !== 0) {
    diagnostics.push({ severity: "warning", source: path, message: `readable by other users (mode ${mode.toString(8)}); run chmod 600 ${path}` });
  }
  return { file: { path, state: "found", providers }, credentials: parsed as StoredCredentials, diagnostics };
}

function invalid(path: string, message: string): StoredFile {
  return { file: { path, state: "invalid", detail: message, providers: [] }, credentials: {}, diagnostics: [{ severity: "error", source: path, message }] };
}
