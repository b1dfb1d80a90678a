// Checks one raw server object from a config file. Problems are returned per server so one bad
// definition never stops the others from loading.

import { isHttpUrl, placeholderProblems } from "./interpolate.js";
import type { McpServerDefinition, McpToolFilterSpec, McpTransport } from "./types.js";

export const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

const KNOWN_KEYS = new Set([
  "type",
  "transport",
  "command",
  "args",
  "env",
  "url",
  "headers",
  "auth",
  "allowedTools",
  "disabledTools",
]);

const TRANSPORT_ALIASES: Record<string, McpTransport> = {
  stdio: "stdio",
  http: "http",
  sse: "sse",
  streamable_http: "http",
  "streamable-http": "http",
  streamableHttp: "http",
};

export type ServerValidation = { definition?: McpServerDefinition; errors: string[]; warnings: string[] };

export type ValidateOptions = {
  /** Values are used verbatim (editor servers): `${...}` is not a placeholder. Default: false. */
  literal?: boolean;
};

export function validateServer(name: string, raw: unknown, options: ValidateOptions = {}): ServerValidation {
  const errors: string[] = [];
  const warnings: string[] = [];
  if (!SERVER_NAME.test(name)) {
    errors.push(`invalid server name "${name}": use only letters, digits, "_" and "-"`);
  }
  if (!isRecord(raw)) {
    errors.push("definition must be a JSON object");
    return { errors, warnings };
  }
  for (const key of Object.keys(raw)) {
    if (!KNOWN_KEYS.has(key)) warnings.push(`unknown key "${key}" (ignored)`);
  }
  const transport = resolveTransport(raw, errors);
  const filter = parseFilter(raw, errors);
  if (!transport) return { errors, warnings };

  if (transport === "stdio") {
    for (const key of ["url", "headers", "auth"]) {
      if (raw[key] !== undefined) errors.push(`"${key}" is not allowed for a stdio server`);
    }
    const command = raw.command;
    if (typeof command !== "string" || command.trim() === "") errors.push(`"command" must be a non-empty string`);
    const args = stringList(raw.args, "args", errors) ?? [];
    const env = stringRecord(raw.env, "env", errors) ?? {};
    if (!options.literal)
      checkPlaceholders(
        [
          ["command", command],
          ...args.map((a, i) => [`args[${i}]`, a] as const),
          ...Object.entries(env).map(([k, v]) => [`env.${k}`, v] as const),
        ],
        errors,
      );
    if (errors.length > 0) return { errors, warnings };
    return {
      definition: { name, transport, command: command as string, args, env, ...(filter ? { filter } : {}) },
      errors,
      warnings,
    };
  }

  for (const key of ["command", "args", "env"]) {
    if (raw[key] !== undefined) errors.push(`"${key}" is not allowed for a ${transport} server`);
  }
  const url = raw.url;
  if (typeof url !== "string" || url.trim() === "") errors.push(`"url" must be a non-empty string`);
  else if ((options.literal || !url.includes("${")) && !isHttpUrl(url))
    errors.push(`"url" must be an http:// or https:// URL`);
  const headers = stringRecord(raw.headers, "headers", errors) ?? {};
  let auth: "oauth" | undefined;
  if (raw.auth !== undefined) {
    if (raw.auth !== "oauth") errors.push(`"auth" must be "oauth"`);
    else if (Object.keys(headers).some((header) => header.toLowerCase() === "authorization")) {
      errors.push(`"auth": "oauth" cannot be combined with an Authorization header`);
    } else auth = "oauth";
  }
  if (!options.literal)
    checkPlaceholders([["url", url], ...Object.entries(headers).map(([k, v]) => [`headers.${k}`, v] as const)], errors);
  if (errors.length > 0) return { errors, warnings };
  return {
    definition: {
      name,
      transport,
      url: url as string,
      headers,
      ...(auth ? { auth } : {}),
      ...(filter ? { filter } : {}),
    },
    errors,
    warnings,
  };
}

function resolveTransport(raw: Record<string, unknown>, errors: string[]): McpTransport | undefined {
  const declared = [raw.type, raw.transport].filter((value) => value !== undefined);
  for (const value of declared) {
    if (typeof value !== "string" || !(value in TRANSPORT_ALIASES)) {
      errors.push(`unsupported transport ${JSON.stringify(value)} (use "stdio", "http" or "sse")`);
      return undefined;
    }
  }
  const normalized = declared.map((value) => TRANSPORT_ALIASES[value as string]!);
  if (normalized.length === 2 && normalized[0] !== normalized[1]) {
    errors.push(`"type" and "transport" disagree (${String(raw.type)} vs ${String(raw.transport)})`);
    return undefined;
  }
  return normalized[0] ?? (raw.url !== undefined ? "http" : "stdio");
}

function parseFilter(raw: Record<string, unknown>, errors: string[]): McpToolFilterSpec | undefined {
  const allowed = raw.allowedTools;
  const disabled = raw.disabledTools;
  if (allowed !== undefined && disabled !== undefined) {
    errors.push(`use either "allowedTools" or "disabledTools", not both`);
    return undefined;
  }
  const key = allowed !== undefined ? "allowedTools" : disabled !== undefined ? "disabledTools" : null;
  if (!key) return undefined;
  const patterns = stringList(raw[key], key, errors);
  if (!patterns) return undefined;
  if (patterns.length === 0) {
    errors.push(`"${key}" must not be empty (remove it to keep every tool)`);
    return undefined;
  }
  if (patterns.some((pattern) => pattern === "")) {
    errors.push(`"${key}" entries must be non-empty strings`);
    return undefined;
  }
  return { mode: key === "allowedTools" ? "allow" : "deny", patterns };
}

function checkPlaceholders(fields: ReadonlyArray<readonly [string, unknown]>, errors: string[]): void {
  for (const [field, value] of fields) {
    if (typeof value !== "string") continue;
    const problem = placeholderProblems(value);
    if (problem) errors.push(`${field}: ${problem}`);
  }
}

function stringList(value: unknown, field: string, errors: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== "string")) {
    errors.push(`"${field}" must be a list of strings`);
    return undefined;
  }
  return value as string[];
}

function stringRecord(value: unknown, field: string, errors: string[]): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isRecord(value) || Object.values(value).some((item) => typeof item !== "string")) {
    errors.push(`"${field}" must be an object whose values are strings`);
    return undefined;
  }
  return value as Record<string, string>;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
