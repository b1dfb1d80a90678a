// Environment policy for commands the agent runs.
//
// Default (inherit: true): the command sees the environment deep-acp was started with — the user's
// PATH, toolchains, proxies and tokens they exported for their own tools — minus deep-acp's own
// model credentials (every provider key of util/secret-env: ANTHROPIC_API_KEY, OPENAI_API_KEY,
// GOOGLE_API_KEY, AWS_SECRET_ACCESS_KEY, ...) and every DEEP_ACP_* variable, so a prompt-injected `env | curl ...` cannot leak the keys the agent itself
// runs on. `inherit: false` gives a minimal environment (PATH, HOME, LANG, TERM, USER, SHELL,
// TMPDIR) for callers that want nothing else to leak. `extraEnv` is applied last in both modes.

import { isModelKeyVariable, MODEL_KEY_VARS } from "../util/secret-env.js";

export const MODEL_CREDENTIAL_VARS = MODEL_KEY_VARS;
export const MINIMAL_ENV_VARS = ["PATH", "HOME", "LANG", "TERM", "USER", "SHELL", "TMPDIR"] as const;

export type ShellEnvPolicy = {
  /** Default true: the parent environment minus model credentials and DEEP_ACP_*. false: MINIMAL_ENV_VARS only. */
  inherit?: boolean;
  /** Set on top of the result (wins over inherited values). Default none. */
  extraEnv?: Record<string, string>;
  /** Variables removed in addition to the model credentials. Default none. */
  dropEnv?: string[];
  /** The parent environment. Default process.env. */
  baseEnv?: NodeJS.ProcessEnv;
};

export function isDroppedVariable(name: string, extra: readonly string[] = []): boolean {
  return isModelKeyVariable(name) || extra.includes(name);
}

export function buildShellEnv(policy: ShellEnvPolicy = {}): Record<string, string> {
  const base = policy.baseEnv ?? process.env;
  const env: Record<string, string> = {};
  const drop = policy.dropEnv ?? [];
  if (policy.inherit ?? true) {
    for (const [name, value] of Object.entries(base)) {
      if (value !== undefined && !isDroppedVariable(name, drop)) env[name] = value;
    }
  } else {
    for (const name of MINIMAL_ENV_VARS) {
      const value = base[name];
      if (value !== undefined) env[name] = value;
    }
  }
  return { ...env, ...(policy.extraEnv ?? {}) };
}
