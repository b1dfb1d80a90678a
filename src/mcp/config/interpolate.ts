// `${VAR}` and `${VAR:-default}` in command, args, env, url and headers, expanded when a server is
// activated. A bare `$VAR` is left alone (shell-like strings in args stay intact); anything else
// that starts with `${` is malformed and rejected rather than passed on half-expanded.

import type { McpServerDefinition } from "./types.js";

const PLACEHOLDER = /\$\{([^}]*)\}/g;
const BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-(.*))?$/s;

export type InterpolationResult = { ok: true; value: string } | { ok: false; error: string };

/** Variables for expansion; `undefined` means unset. */
export type VariableLookup = (name: string) => string | undefined;

export function lookupFrom(...sources: Array<Record<string, string | undefined> | undefined>): VariableLookup {
  return (name) => {
    for (const source of sources) {
      const value = source?.[name];
      if (value !== undefined) return value;
    }
    return undefined;
  };
}

/** The first placeholder syntax problem in `text`, or null. */
export function placeholderProblems(text: string): string | null {
  const last = text.lastIndexOf("${");
  if (last !== -1 && text.indexOf("}", last) === -1) return `unterminated "\${" placeholder`;
  for (const match of text.matchAll(PLACEHOLDER)) {
    if (!BODY.test(match[1] ?? "")) return `malformed placeholder "\${${match[1]}}" (use \${VAR} or \${VAR:-default})`;
  }
  return null;
}

/** Expands one string. `:-` falls back when the variable is unset or empty, as in POSIX shells. */
export function interpolate(text: string, lookup: VariableLookup): InterpolationResult {
  const problem = placeholderProblems(text);
  if (problem) return { ok: false, error: problem };
  let missing: string | null = null;
  const value = text.replace(PLACEHOLDER, (_whole, body: string) => {
    const [, name = "", fallback] = BODY.exec(body) ?? [];
    const current = lookup(name);
    if (fallback !== undefined) return current === undefined || current === "" ? fallback : current;
    if (current === undefined) {
      missing ??= name;
      return "";
    }
    return current;
  });
  if (missing !== null) return { ok: false, error: `environment variable ${missing} is not set` };
  return { ok: true, value };
}

export type ResolvedServer = McpServerDefinition;
export type ResolveResult = { ok: true; server: ResolvedServer } | { ok: false; error: string };

/**
 * Expands every interpolated field of a definition. Errors name the field and the variable but
 * never a value, since expanded values are often secrets.
 */
export function resolveServerDefinition(definition: McpServerDefinition, lookup: VariableLookup): ResolveResult {
  const expand = (text: string, field: string): string => {
    const result = interpolate(text, lookup);
    if (!result.ok) throw new InterpolationError(`${field}: ${result.error}`);
    return result.value;
  };
  const expandRecord = (record: Record<string, string>, field: string) =>
    Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value, `${field}.${key}`)]));
  try {
    if (definition.transport === "stdio") {
      return {
        ok: true,
        server: {
          ...definition,
          command: expand(definition.command, "command"),
          args: definition.args.map((arg, index) => expand(arg, `args[${index}]`)),
          env: expandRecord(definition.env, "env"),
        },
      };
    }
    const url = expand(definition.url, "url");
    if (!isHttpUrl(url)) return { ok: false, error: "url: not an http(s) URL after interpolation (value hidden)" };
    return { ok: true, server: { ...definition, url, headers: expandRecord(definition.headers, "headers") } };
  } catch (error) {
    if (error instanceof InterpolationError) return { ok: false, error: error.message };
    throw error;
  }
}

/** A definition with no placeholders resolves to itself; used for editor servers. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

class InterpolationError extends Error {}
