// The approval dialog's request for a project MCP server: what it shows (where the server comes from,
// exactly what it runs, what it receives) and the fingerprint an approval of it is bound to.

import {
  environmentExposure,
  isInheritedVariable,
  mayRead,
  placeholdersOf,
  type EnvironmentExposure,
  type McpEnvPolicy,
} from "../config/environment.js";
import { fingerprintServer } from "../config/fingerprint.js";
import type { ServerScripts } from "./script-trust.js";
import type { McpServerEntry, McpSource, McpTransport } from "../config/types.js";

/** What the approval dialog must show: where the server came from and exactly what it runs. */
export type McpTrustRequest = {
  name: string;
  source: McpSource;
  /** The config file that defines the server. */
  origin: string;
  projectRoot: string;
  transport: McpTransport | "unknown";
  /** stdio: the command and arguments as written (placeholders unexpanded: they are not secrets). */
  command?: string;
  args?: string[];
  /** stdio: names of the environment variables it sets. */
  envNames?: string[];
  /** stdio: its `env` as written. */
  env?: Record<string, string>;
  /** http/sse: the URL as written. */
  url?: string;
  /** http/sse: header names. */
  headerNames?: string[];
  /** http/sse: its headers as written. */
  headers?: Record<string, string>;
  oauth?: boolean;
  /** Which of the user's environment variables it would receive (names only). */
  exposure: EnvironmentExposure;
  /** What an approval is bound to: the definition plus the allowlisted variables it reads. */
  fingerprint: string;
  /** A saved approval exists for this name, but for a different definition or different scripts. */
  changed: boolean;
  /** Project files the server runs, covered by an approval; and why others cannot be told. */
  scripts?: ServerScripts;
  /** What changed since the last approval, when known ("tools/server.mjs changed"). */
  changes?: string[];
  /** Dialog title, e.g. `Start project MCP server "db"?`. */
  title: string;
  /** Multi-line plain text with everything above, for the dialog body. */
  detail: string;
};

/**
 * The approval fingerprint: the definition as written, plus the names of the variables only
 * `[mcp] project_env` lets it read, so allowing a new variable later asks again. Without such
 * variables it is the plain definition fingerprint (the one dcode stores too).
 */
export function trustFingerprint(entry: McpServerEntry, policy: McpEnvPolicy): string {
  const extra = entry.definition
    ? placeholdersOf(entry.definition)
        .map((p) => p.name)
        .filter((name) => mayRead(entry, name, policy) && !isInheritedVariable(name))
        .sort()
    : [];
  return extra.length === 0
    ? entry.fingerprint
    : fingerprintServer({ definition: entry.raw ?? null, allowedVariables: extra });
}

/** The definition's fingerprint with the scripts' digests, or the definition's alone when it runs none. */
export function boundFingerprint(definition: string, scripts: ServerScripts | undefined): string {
  const digests = scripts?.digests ?? {};
  return Object.keys(digests).length === 0 ? definition : fingerprintServer({ definition, scripts: digests });
}

export type DescribeContext = {
  env: Readonly<Record<string, string | undefined>>;
  policy: McpEnvPolicy;
  /** The project files it runs (project servers). */
  scripts?: ServerScripts;
  /** What changed since the last approval, when known. */
  changes?: string[];
};

export function describeTrustRequest(
  entry: McpServerEntry,
  projectRoot: string,
  changed: boolean,
  context: DescribeContext = { env: {}, policy: { projectEnv: [] } },
): McpTrustRequest {
  const raw = (typeof entry.raw === "object" && entry.raw !== null ? entry.raw : {}) as Record<string, unknown>;
  const definition = entry.definition;
  const exposure = environmentExposure(entry, context.env, context.policy);
  const base = {
    name: entry.name,
    source: entry.source,
    origin: entry.origin,
    projectRoot,
    fingerprint: boundFingerprint(trustFingerprint(entry, context.policy), context.scripts),
    changed,
    exposure,
    ...(context.scripts ? { scripts: context.scripts } : {}),
    ...(context.changes?.length ? { changes: context.changes } : {}),
  };
  const lines = [`Defined in: ${entry.origin}`];
  let request: McpTrustRequest;
  if (definition?.transport === "stdio") {
    const envNames = Object.keys(definition.env);
    lines.push(`Runs: ${[definition.command, ...definition.args].map(quoteArg).join(" ")}`);
    if (envNames.length > 0) {
      lines.push("Sets environment:");
      for (const [name, value] of Object.entries(definition.env)) lines.push(`  ${name}=${value}`);
    }
    request = {
      ...base,
      transport: "stdio",
      command: definition.command,
      args: definition.args,
      envNames,
      env: { ...definition.env },
      title: "",
      detail: "",
    };
  } else if (definition) {
    const headerNames = Object.keys(definition.headers);
    lines.push(`Connects to: ${definition.url} (${definition.transport === "sse" ? "SSE" : "Streamable HTTP"})`);
    if (headerNames.length > 0) {
      lines.push("Sends headers:");
      for (const [name, value] of Object.entries(definition.headers)) lines.push(`  ${name}: ${value}`);
    }
    if (definition.auth) lines.push("Authentication: OAuth");
    request = {
      ...base,
      transport: definition.transport,
      url: definition.url,
      headerNames,
      headers: { ...definition.headers },
      oauth: definition.auth === "oauth",
      title: "",
      detail: "",
    };
  } else {
    lines.push(`Definition: ${JSON.stringify(Object.keys(raw))} (invalid)`);
    request = { ...base, transport: "unknown", title: "", detail: "" };
  }
  const scripts = context.scripts;
  const files = Object.keys(scripts?.digests ?? {}).sort();
  if (files.length > 0) lines.push(`Project files it runs (any change asks again): ${files.join(", ")}`);
  if (scripts?.undetermined.length)
    lines.push(
      `Which files it runs cannot be determined (${scripts.undetermined.join("; ")}): an approval covers the definition as written, not what it loads.`,
    );
  lines.push(...exposureLines(exposure));
  const known = context.changes ?? [];
  const changedFiles = known.filter((change) => change !== "the definition changed");
  // An approval stored before scripts were covered says only that something changed.
  if (changed && (known.length === 0 || changedFiles.length < known.length))
    lines.push("The definition changed since you last approved this server.");
  if (changedFiles.length > 0) lines.push(`Asked again because: ${changedFiles.join("; ")}.`);
  lines.push(`Project: ${projectRoot}`);
  request.title = `Start project MCP server "${entry.name}"?`;
  request.detail = lines.join("\n");
  return request;
}

/** "Receives from your environment: ..." lines: names only, never values. */
function exposureLines(exposure: EnvironmentExposure): string[] {
  const lines = [
    `Receives from your environment: ${exposure.receives.length > 0 ? exposure.receives.join(", ") : "none of your variables"}`,
  ];
  if (exposure.inherits.length > 0) lines.push(`Also inherits: ${exposure.inherits.join(", ")}`);
  for (const item of exposure.withheld) {
    lines.push(
      `Not given: ${item.name} (${item.reason})${item.hasDefault ? "; its default is used" : "; the server will not start"}`,
    );
  }
  return lines;
}

function quoteArg(arg: string): string {
  return /^[A-Za-z0-9_@%+=:,./${}-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
