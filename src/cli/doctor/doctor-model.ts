import { stat } from "node:fs/promises";
import { join } from "node:path";
import { envValue, providerSettings, type EnvLike, type StoredCredentials } from "../../model/catalog/credentials.js";
import { allProviderVars, PROVIDERS } from "../../model/catalog/providers.js";
import {
  createModelClient,
  ModelConfigError,
  resolveModelSpec,
  type ResolvedModelSpec,
} from "../../model/client/resolve.js";
import { PROVIDER_NAMES, type ProviderName } from "../../model/types.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { DoctorFile, DoctorModelFacts } from "./doctor-types.js";
import { readJsonObjectFile } from "../../util/json-file.js";

/** Every variable that influences model choice, in the order `deep-acp --help` lists them. */
export const MODEL_ENV_VARS: readonly string[] = allProviderVars();

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
  const base = {
    credentialsFile: stored.file,
    env,
    diagnostics: stored.diagnostics,
    providers: providerRows(options.env, stored.credentials),
  };
  const resolved = resolveModelSpec({
    flag: options.flag,
    env: options.env,
    configDefault: options.configDefault,
    credentials: stored.credentials,
  });
  if ("error" in resolved) return failed(base, resolved.error);
  try {
    await createModelClient(resolved, { env: options.env, credentials: stored.credentials });
  } catch (error) {
    if (!(error instanceof ModelConfigError)) throw error;
    return {
      ...failed(base, `${resolved.spec} (from ${resolved.source}): ${error.message}`),
      spec: resolved.spec,
      source: resolved.source,
    };
  }
  return {
    ok: true,
    spec: resolved.spec,
    source: resolved.source,
    ...describeCredential(resolved, options.env, stored),
    ...base,
  };
}

function failed(
  base: Pick<DoctorModelFacts, "credentialsFile" | "env" | "diagnostics" | "providers">,
  error: string,
): DoctorModelFacts {
  return {
    ...base,
    ok: false,
    error,
    diagnostics: [...base.diagnostics, { severity: "error", source: "model", message: error }],
  };
}

function describeCredential(
  resolved: ResolvedModelSpec,
  env: EnvLike,
  stored: StoredFile,
): Pick<DoctorModelFacts, "credential" | "endpoint"> {
  const provider = resolved.provider;
  const info = PROVIDERS[provider];
  const settings = providerSettings(provider, env, stored.credentials);
  const where = (source: string | undefined) =>
    source === "stored" ? `stored credentials (${stored.file.path})` : `${source} (environment)`;
  const out: Pick<DoctorModelFacts, "credential" | "endpoint"> = {};
  if (settings.sources.apiKey) out.credential = where(settings.sources.apiKey);
  else if (settings.sources.token) out.credential = `Entra ID token: ${where(settings.sources.token)}`;
  else if (provider === "bedrock")
    out.credential = `the AWS credential chain (${["AWS_PROFILE", "AWS_ACCESS_KEY_ID", "AWS_BEARER_TOKEN_BEDROCK"].filter((name) => envValue(env, name)).join(", ") || "shared config, SSO cache or instance role"})`;
  else if (provider === "vertex")
    out.credential = envValue(env, "GOOGLE_APPLICATION_CREDENTIALS")
      ? "GOOGLE_APPLICATION_CREDENTIALS (environment)"
      : "application-default credentials";
  else
    out.credential = info.keyRequired
      ? "none found"
      : info.keyVars.length > 0
        ? "no API key (optional for this provider)"
        : "none needed";
  if (settings.baseUrl)
    out.endpoint = `${settings.baseUrl} (${settings.sources.baseUrl === "stored" ? `stored credentials (${stored.file.path})` : settings.sources.baseUrl})`;
  else if (info.defaultBaseUrl && info.detect === "url") out.endpoint = `${info.defaultBaseUrl} (default)`;
  return out;
}

/** One line per provider: the variables it reads and which of them are set (never their values). */
function providerRows(env: EnvLike, credentials: StoredCredentials): NonNullable<DoctorModelFacts["providers"]> {
  return PROVIDER_NAMES.map((name) => {
    const info = PROVIDERS[name];
    const reads = [...info.keyVars, ...(info.baseUrlVar ? [info.baseUrlVar] : []), ...(info.otherVars ?? [])];
    const settings = providerSettings(name, env, credentials);
    return {
      name,
      label: info.label,
      reads,
      set: reads.filter((variable) => envValue(env, variable) !== undefined),
      stored: credentials[name] !== undefined,
      usable: settings.usable,
      explicit: info.detect === "explicit",
      ...(info.files && { files: [...info.files] }),
    };
  });
}

type StoredFile = {
  file: DoctorFile & { providers: string[] };
  credentials: StoredCredentials;
  diagnostics: Diagnostic[];
};

/** Unlike the session, which quietly ignores a broken file, doctor says why the stored key is not used. */
async function readCredentials(path: string): Promise<StoredFile> {
  const found = await readJsonObjectFile(path);
  if (found.state === "missing")
    return { file: { path, state: "missing", providers: [] }, credentials: {}, diagnostics: [] };
  if (found.state === "invalid") return invalid(path, `${found.reason} (run deep-acp login again)`);
  const parsed = found.value;
  const diagnostics: Diagnostic[] = [];
  const providers = Object.keys(parsed).filter((key): key is ProviderName =>
    (PROVIDER_NAMES as readonly string[]).includes(key),
  );
  for (const key of Object.keys(parsed)) {
    if (!providers.includes(key as ProviderName))
      diagnostics.push({ severity: "warning", source: path, message: `unknown provider "${key}" (ignored)` });
  }
  const mode = await stat(path).then(
    (info) => info.mode & 0o777,
    () => undefined,
  );
  if (mode !== undefined && (mode & 0o077) !== 0) {
    diagnostics.push({
      severity: "warning",
      source: path,
      message: `readable by other users (mode ${mode.toString(8)}); run chmod 600 ${path}`,
    });
  }
  return { file: { path, state: "found", providers }, credentials: parsed as StoredCredentials, diagnostics };
}

function invalid(path: string, message: string): StoredFile {
  return {
    file: { path, state: "invalid", detail: message, providers: [] },
    credentials: {},
    diagnostics: [{ severity: "error", source: path, message }],
  };
}
