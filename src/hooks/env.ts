import { filterEnvironment, isCredentialLike, isPassableVariable, withoutSecrets } from "../util/secret-env.js";
import type { HookSource } from "./types.js";

// Hooks run with the user's privileges but must not receive credentials by accident. User hooks
// (~/.deepagents/hooks.json, the user's own config) get the agent's environment minus secrets, as
// the seeds say: no name containing KEY, TOKEN, SECRET, PASSWORD or APIKEY, nothing credential-like
// (DB_PASS, DATABASE_URL, GH_PAT, ...), no provider credential. Project and plugin hooks get an
// allowlist, as MCP stdio servers do: the base variables of util/secret-env (PATH, HOME, locale,
// proxies, ...). Both get the names listed in config.toml `[hooks] pass_env`; model keys never.

/** Kept for callers that only want to know whether a name looks like a secret. */
export function isSecretEnvName(name: string): boolean {
  return isCredentialLike(name);
}

/** Whether a hook may receive `name` (given the user's `[hooks] pass_env`). */
export function isHookVariable(name: string, passEnv: readonly string[] = []): boolean {
  return isPassableVariable(name, { allowed: passEnv });
}

/** The allowlisted part of `env` (and no unset values). */
export function scrubHookEnv(
  env: Readonly<Record<string, string | undefined>>,
  passEnv: readonly string[] = [],
): Record<string, string> {
  return filterEnvironment(env, { allowed: passEnv });
}

/** Variables we set for a handler of `source`; they are also substituted as `${NAME}` in argv. */
export function hookVariables(source: HookSource, projectRoot: string): Record<string, string> {
  const vars: Record<string, string> = { CLAUDE_PROJECT_DIR: projectRoot };
  if (source.scope === "plugin") {
    if (source.pluginRoot !== undefined) {
      vars.CLAUDE_PLUGIN_ROOT = source.pluginRoot;
      vars.PLUGIN_ROOT = source.pluginRoot;
    }
    if (source.pluginDataDir !== undefined) {
      vars.CLAUDE_PLUGIN_DATA = source.pluginDataDir;
      vars.PLUGIN_DATA = source.pluginDataDir;
    }
  }
  return vars;
}

/** The environment a handler runs with: user hooks the environment minus secrets, others the allowlist; plus our variables. */
export function buildHookEnv(
  base: Readonly<Record<string, string | undefined>>,
  source: HookSource,
  projectRoot: string,
  passEnv: readonly string[] = [],
): Record<string, string> {
  const inherited = source.scope === "user" ? withoutSecrets(base, { allowed: passEnv }) : scrubHookEnv(base, passEnv);
  return { ...inherited, ...hookVariables(source, projectRoot) };
}

/**
 * Replaces `${NAME}` for our variables in argv elements. `command` strings need no substitution:
 * the shell expands them from the environment.
 */
export function substituteHookVariables(arg: string, vars: Readonly<Record<string, string>>): string {
  return arg.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : whole));
}
