// What a server gets from the user's environment.
//
// stdio servers start with the base allowlist of util/secret-env (PATH, HOME, locale, proxies, ...)
// plus their own `env`; nothing else of deep-acp's environment is inherited. `${VAR}` placeholders
// in command, args, env, url and headers are how a definition asks for more. For the user's own
// config (user file, --mcp-config, plugins) any variable may be read; a project server (a file in a
// repository nobody reviewed) may read only base variables that do not look like secrets and the
// names listed in config.toml `[mcp] project_env`, and never a model key. A refused placeholder
// without a `:-default` stops the server with an error that says how to allow it.

import {
  filterEnvironment,
  isBaseVariable,
  isCredentialLike,
  isModelKeyVariable,
  isPassableVariable,
} from "../../util/secret-env.js";
import { lookupFrom, type VariableLookup } from "./interpolate.js";
import type { McpServerDefinition, McpServerEntry } from "./types.js";
import { UNTRUSTED_SOURCES } from "./types.js";

/** config.toml `[mcp]` settings that decide what project servers may read. */
export type McpEnvPolicy = {
  /** `[mcp] project_env`: variables project servers may receive. Model keys stay out even if listed. */
  projectEnv: readonly string[];
};

export function isInheritedVariable(name: string): boolean {
  return isBaseVariable(name) && !isCredentialLike(name);
}

/** Allowlisted parent variables, then the server's configured `env` on top. */
export function stdioServerEnvironment(
  parent: Record<string, string | undefined>,
  configured: Record<string, string>,
): Record<string, string> {
  return { ...filterEnvironment(parent), ...configured };
}

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}/g;

export type Placeholder = { name: string; hasDefault: boolean };

/** Every `${VAR}` a definition reads, once per name (a default counts only if every use has one). */
export function placeholdersOf(definition: McpServerDefinition): Placeholder[] {
  const texts =
    definition.transport === "stdio"
      ? [definition.command, ...definition.args, ...Object.values(definition.env)]
      : [definition.url, ...Object.values(definition.headers)];
  const found = new Map<string, boolean>();
  for (const text of texts) {
    for (const match of text.matchAll(PLACEHOLDER)) {
      const name = match[1]!;
      found.set(name, (found.get(name) ?? true) && match[2] !== undefined);
    }
  }
  return [...found].map(([name, hasDefault]) => ({ name, hasDefault }));
}

/** May a server from `entry`'s source read `name` through a placeholder? */
export function mayRead(entry: Pick<McpServerEntry, "source">, name: string, policy: McpEnvPolicy): boolean {
  if (!UNTRUSTED_SOURCES.has(entry.source)) return true;
  return isPassableVariable(name, { allowed: policy.projectEnv });
}

export type WithheldVariable = { name: string; reason: string; hasDefault: boolean };

/** What the server would receive from the user's environment, for the trust dialog (names only). */
export type EnvironmentExposure = {
  /** Variables its placeholders read that are set and allowed. */
  receives: string[];
  /** Base variables a stdio server inherits (those set now). */
  inherits: string[];
  /** Placeholders it may not read, and why. */
  withheld: WithheldVariable[];
};

export function environmentExposure(
  entry: McpServerEntry,
  env: Readonly<Record<string, string | undefined>>,
  policy: McpEnvPolicy,
): EnvironmentExposure {
  const definition = entry.definition;
  if (!definition || entry.literal) return { receives: [], inherits: [], withheld: [] };
  const receives: string[] = [];
  const withheld: WithheldVariable[] = [];
  for (const { name, hasDefault } of placeholdersOf(definition)) {
    if (entry.variables && Object.hasOwn(entry.variables, name)) continue;
    if (!mayRead(entry, name, policy)) withheld.push({ name, hasDefault, reason: withheldReason(name) });
    else if (env[name] !== undefined) receives.push(name);
  }
  const inherits = definition.transport === "stdio" ? Object.keys(filterEnvironment(env)).sort() : [];
  return { receives: receives.sort(), inherits, withheld };
}

function withheldReason(name: string): string {
  if (isModelKeyVariable(name)) return "a model key; never given to project servers";
  return "not in [mcp] project_env";
}

/**
 * The lookup for expanding `entry`'s placeholders, or an error naming the first refused variable
 * that has no default. Plugin variables (their root and data dir) always win.
 */
export function interpolationLookup(
  entry: McpServerEntry,
  env: Readonly<Record<string, string | undefined>>,
  policy: McpEnvPolicy,
): { ok: true; lookup: VariableLookup } | { ok: false; error: string } {
  if (!UNTRUSTED_SOURCES.has(entry.source)) return { ok: true, lookup: lookupFrom(entry.variables, env) };
  const refused = entry.definition
    ? environmentExposure(entry, env, policy).withheld.find((item) => !item.hasDefault)
    : undefined;
  if (refused) {
    return {
      ok: false,
      error: `uses \${${refused.name}}, which project servers may not read (${refused.reason}); to allow it, add "${refused.name}" to [mcp] project_env in ~/.deepagents/config.toml`,
    };
  }
  const allowed: VariableLookup = (name) => (mayRead(entry, name, policy) ? env[name] : undefined);
  return { ok: true, lookup: (name) => entry.variables?.[name] ?? allowed(name) };
}
