// Environment policy for commands the agent runs.
//
// Default (inherit: true): the command sees the environment deep-acp was started with — the user's
// PATH, toolchains, proxies and tokens they exported for their own tools — minus every provider's
// credentials (util/secret-env: the model keys and Entra token, never; the cloud credentials Bedrock
// and Vertex read, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, GOOGLE_APPLICATION_CREDENTIALS, ...,
// unless `[shell] pass_env` names them) and every DEEP_ACP_* variable, so a prompt-injected
// `env | curl ...` cannot leak the keys the agent itself runs on. `inherit: false` gives a minimal
// environment (PATH, HOME, LANG, TERM, USER, SHELL, TMPDIR) for callers that want nothing else to
// leak. `extraEnv` is applied last in both modes.

import { isModelKeyVariable, isProviderCredential } from "../../util/secret-env.js";

export const MINIMAL_ENV_VARS = ["PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR"] as const;

export type ShellEnvPolicy = {
  /** Default true: the parent environment minus model credentials and DEEP_ACP_*. false: MINIMAL_ENV_VARS only. */
  inherit?: boolean;
  /** Set on top of the result (wins over inherited values). Default none. */
  extraEnv?: Record<string, string>;
  /** Variables removed in addition to the model credentials. Default none. */
  dropEnv?: string[];
  /** Cloud credentials passed anyway (`[shell] pass_env`); model keys never. Default none. */
  passEnv?: readonly string[];
  /** The parent environment. Default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
};

export function isDroppedVariable(name: string, extra: readonly string[] = [], pass: readonly string[] = []): boolean {
  if (isModelKeyVariable(name) || extra.includes(name)) return true;
  return isProviderCredential(name) && !pass.includes(name);
}

export function buildShellEnv(policy: ShellEnvPolicy = {}): Record<string, string> {
  const base = policy.baseEnv ?? process.env;
  const env: Record<string, string> = {};
  const drop = policy.dropEnv ?? [];
  if (policy.inherit ?? true) {
    for (const [name, value] of Object.entries(base)) {
      if (value !== undefined && !isDroppedVariable(name, drop, policy.passEnv)) env[name] = value;
    }
  } else {
    for (const name of MINIMAL_ENV_VARS) {
      const value = base[name];
      if (value !== undefined) env[name] = value;
    }
  }
  return { ...env, ...(policy.extraEnv ?? {}) };
}
