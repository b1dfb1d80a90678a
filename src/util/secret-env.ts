// Which environment variables may reach code deep-acp starts for someone else: MCP servers, hooks,
// shell commands. Three lists, used by mcp/, hooks/ and backends/:
//
// - BASE: what locates programs and the user, terminal and locale, temp and XDG dirs, proxies and
//   CA settings, Windows basics. Harmless and needed (npx must reach the registry through a proxy).
// - model keys: the credentials deep-acp itself runs on. They never leave the agent, whatever a
//   config file asks for: a prompt-injected command or a hostile project file must not get them.
// - credential-like names: anything that looks like a secret (…_TOKEN, *PASS* (PGPASSFILE_CONTENT),
//   …_PW, …_CRED(S), *JWT*, *BEARER*, *AUTHORIZATION*, *CONNECTION_STRING*, DATABASE_URL, …_DSN,
//   GH_PAT, NPM_AUTH…). Passed only where the user named the variable explicitly. One list: user
//   hooks, MCP servers, SSH and the /proc environ hiding all read it.

const BASE = new Set([
  "PATH",
  "HOME",
  "USER",
  "LOGNAME",
  "SHELL",
  "TERM",
  "COLORTERM",
  "LANG",
  "LANGUAGE",
  "TZ",
  "TMPDIR",
  "TEMP",
  "TMP",
  "XDG_RUNTIME_DIR",
  "XDG_CONFIG_HOME",
  "XDG_CACHE_HOME",
  "XDG_DATA_HOME",
  "XDG_STATE_HOME",
  "HTTP_PROXY",
  "HTTPS_PROXY",
  "NO_PROXY",
  "http_proxy",
  "https_proxy",
  "no_proxy",
  "NODE_EXTRA_CA_CERTS",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  // Windows
  "SYSTEMROOT",
  "SystemRoot",
  "COMSPEC",
  "PATHEXT",
  "APPDATA",
  "LOCALAPPDATA",
  "USERPROFILE",
  "HOMEDRIVE",
  "HOMEPATH",
  "PROGRAMFILES",
  "ProgramFiles",
]);

/** In the base allowlist: passed to MCP stdio servers and hooks without being asked for. */
export function isBaseVariable(name: string): boolean {
  return BASE.has(name) || name.startsWith("LC_");
}

/**
 * The keys and tokens deep-acp's model providers run on (DESIGN.md's model table and presets, the
 * `keyVars` and Entra token of model/providers.ts; a test keeps them equal). Never passed on.
 */
export const MODEL_KEY_VARS: readonly string[] = [
  "ANTHROPIC_API_KEY",
  "ANTHROPIC_AUTH_TOKEN",
  "OPENAI_API_KEY",
  "OPENAI_COMPATIBLE_API_KEY",
  "GOOGLE_API_KEY",
  "GEMINI_API_KEY",
  "AZURE_OPENAI_API_KEY",
  "AZURE_OPENAI_AD_TOKEN",
  "AWS_BEARER_TOKEN_BEDROCK",
  "OPENROUTER_API_KEY",
  "GROQ_API_KEY",
  "MISTRAL_API_KEY",
  "DEEPSEEK_API_KEY",
  "TOGETHER_API_KEY",
  "LMSTUDIO_API_KEY",
  "VLLM_API_KEY",
];

/**
 * Cloud credentials the Bedrock and Vertex providers read from the environment, which are also the
 * user's identity for their own tools (aws, gcloud): kept out of commands, hooks and MCP servers
 * unless the user names them (`[shell] pass_env`, `[hooks] pass_env`, `[mcp] project_env`).
 */
export const CLOUD_CREDENTIAL_VARS: readonly string[] = [
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_SECURITY_TOKEN",
  "AWS_CONTAINER_AUTHORIZATION_TOKEN",
  "GOOGLE_APPLICATION_CREDENTIALS",
  "GOOGLE_OAUTH_ACCESS_TOKEN",
  "CLOUDSDK_AUTH_ACCESS_TOKEN",
];

/** A key deep-acp's model providers use (or one of deep-acp's own DEEP_ACP_* settings). Never passed on. */
export function isModelKeyVariable(name: string): boolean {
  return MODEL_KEY_VARS.includes(name) || name.startsWith("DEEP_ACP_");
}

/** A provider's credential of any kind: a model key or a cloud credential (passable only when named). */
export function isProviderCredential(name: string): boolean {
  return isModelKeyVariable(name) || CLOUD_CREDENTIAL_VARS.includes(name);
}

// Whole words of an upper-cased name split at `_`; PAT, AUTH, DSN, PW and CRED would match too much
// as substrings (PATH, AUTHOR, CREDIT, ...), so they count only as words.
const SECRET_WORDS = new Set([
  "KEY",
  "KEYS",
  "APIKEY",
  "TOKEN",
  "TOKENS",
  "SECRET",
  "SECRETS",
  "PWD",
  "PAT",
  "AUTH",
  "DSN",
  "CREDENTIAL",
  "CREDENTIALS",
  "COOKIE",
  "SESSION",
  "PRIVATE",
  "SIGNATURE",
  "SALT",
  // Round 4: MYSQL_PW, SMTP_CRED, REGISTRY_CREDS.
  "PW",
  "CRED",
  "CREDS",
]);
// PASS as a substring too (PGPASSFILE_CONTENT, LDAP_BINDPASS): a few harmless names (COMPASS_HOME,
// BYPASS_X) go with it, which is the right way to err for code started on someone else's behalf.
const SECRET_SUBSTRINGS = [
  "TOKEN",
  "SECRET",
  "PASS",
  "APIKEY",
  "API_KEY",
  "CREDENTIAL",
  "PRIVATE_KEY",
  "JWT",
  "BEARER",
  "AUTHORIZATION",
  "CONNECTION_STRING",
];
// Connection strings carry passwords: DATABASE_URL, REDIS_URL, MONGODB_URI, AMQP_URL ...
const CONNECTION_STRING =
  /(?:^|_)(?:DATABASE|DB|REDIS|MONGO|MONGODB|POSTGRES|POSTGRESQL|PG|MYSQL|AMQP|RABBITMQ|KAFKA|ELASTICSEARCH|SENTRY|WEBHOOK|SLACK_WEBHOOK)(?:_[A-Z0-9]+)*_(?:URL|URI|DSN)$/;

/** Looks like it holds a secret (model keys included). Deliberately broad. */
export function isCredentialLike(name: string): boolean {
  if (isProviderCredential(name)) return true;
  const upper = name.toUpperCase();
  // The shell's working directory, not a password (DB_PWD still counts); SSH_ASKPASS, GIT_ASKPASS
  // and SUDO_ASKPASS name the program that asks for one.
  if (upper === "PWD" || /(?:^|_)ASKPASS$/.test(upper)) return false;
  if (SECRET_SUBSTRINGS.some((marker) => upper.includes(marker))) return true;
  if (upper.split(/[^A-Z0-9]+/).some((word) => SECRET_WORDS.has(word))) return true;
  return CONNECTION_STRING.test(upper);
}

export type EnvAllowlist = {
  /** Extra names the user allowed (config). Model keys stay out even when listed. */
  allowed?: readonly string[];
};

/**
 * Whether `name` may be given to code started on the user's behalf: base variables that do not look
 * like secrets, plus the names the user listed. Model keys never.
 */
export function isPassableVariable(name: string, allowlist: EnvAllowlist = {}): boolean {
  if (isModelKeyVariable(name)) return false;
  if (allowlist.allowed?.includes(name)) return true;
  return isBaseVariable(name) && !isCredentialLike(name);
}

/** The allowed part of `env` (unset values and exported shell functions dropped). */
export function filterEnvironment(
  env: Readonly<Record<string, string | undefined>>,
  allowlist: EnvAllowlist = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    // Values starting with "()" are skipped against Shellshock-style parsing (as the MCP SDK does).
    if (value === undefined || value.startsWith("()") || !isPassableVariable(name, allowlist)) continue;
    out[name] = value;
  }
  return out;
}

/** A secret by the seeds' rule: a name containing KEY (APIKEY too), TOKEN, SECRET or PASSWORD, or a credential-like one. */
export function isSecretName(name: string): boolean {
  return /KEY|TOKEN|SECRET|PASSWORD/i.test(name) || isCredentialLike(name);
}

/**
 * What a user hook receives (the seeds: the environment minus names containing KEY, TOKEN, SECRET,
 * PASSWORD or APIKEY): the agent's environment without those, without anything credential-like
 * (DB_PASS, DATABASE_URL, GH_PAT, ...) and without provider credentials; `allowed` names come back
 * (model keys never).
 */
export function withoutSecrets(
  env: Readonly<Record<string, string | undefined>>,
  allowlist: EnvAllowlist = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value.startsWith("()") || isModelKeyVariable(name)) continue;
    if (isSecretName(name) && !allowlist.allowed?.includes(name)) continue;
    out[name] = value;
  }
  return out;
}
