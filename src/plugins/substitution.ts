export type PluginVariables = {
  root: string;
  dataDir: string;
  /** The session's project root; `${CLAUDE_PROJECT_DIR}` stays as-is without one. */
  projectDir?: string;
};

/** Variables exported to plugin processes and substituted as `${NAME}` in plugin MCP and hook config. */
export function pluginEnvironment(vars: PluginVariables): Record<string, string> {
  const env: Record<string, string> = {
    CLAUDE_PLUGIN_ROOT: vars.root,
    PLUGIN_ROOT: vars.root,
    CLAUDE_PLUGIN_DATA: vars.dataDir,
    PLUGIN_DATA: vars.dataDir,
  };
  if (vars.projectDir !== undefined) env.CLAUDE_PROJECT_DIR = vars.projectDir;
  return env;
}

/**
 * Replaces `${NAME}` for the plugin variables in every string of a JSON value. Other `${...}`
 * references are left for the MCP loader, which resolves them from the user's environment.
 */
export function substitutePluginVariables<T>(value: T, env: Readonly<Record<string, string>>): T {
  if (typeof value === "string") {
    return value.replace(/\$\{([A-Z_]+)\}/g, (whole, name: string) =>
      Object.hasOwn(env, name) ? env[name]! : whole,
    ) as T;
  }
  if (Array.isArray(value)) return value.map((item) => substitutePluginVariables(item, env)) as T;
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, substitutePluginVariables(item, env)]),
    ) as T;
  }
  return value;
}
