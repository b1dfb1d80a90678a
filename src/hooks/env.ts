import type { HookSource } from "./types.js";

// Hooks run with the user's privileges but must not receive credentials by accident. Any variable
// whose upper-cased name contains one of these is dropped, deliberately over-broad (it also drops
// names like KEYBOARD_LAYOUT): a hook that needs a secret should read it from a secret manager.
const SECRET_MARKERS = ["KEY", "TOKEN", "SECRET", "PASSWORD", "APIKEY"];

export function isSecretEnvName(name: string): boolean {
  const upper = name.toUpperCase();
  return SECRET_MARKERS.some((marker) => upper.includes(marker));
}

/** `env` minus every secret-looking variable (and unset values). */
export function scrubHookEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !isSecretEnvName(name)) out[name] = value;
  }
  return out;
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

/** The environment a handler runs with: scrubbed base plus our variables. */
export function buildHookEnv(
  base: Readonly<Record<string, string | undefined>>,
  source: HookSource,
  projectRoot: string,
): Record<string, string> {
  return { ...scrubHookEnv(base), ...hookVariables(source, projectRoot) };
}

/**
 * Replaces `${NAME}` for our variables in argv elements. `command` strings need no substitution:
 * the shell expands them from the environment.
 */
export function substituteHookVariables(arg: string, vars: Readonly<Record<string, string>>): string {
  return arg.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : whole));
}
