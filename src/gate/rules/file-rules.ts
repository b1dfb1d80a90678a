import picomatch from "picomatch";
import type { Diagnostic, Loaded } from "../../util/diagnostics.js";
import { isWithinPosix } from "../../util/path-within.js";

// File rules from config.toml `[[permissions]]` (reference/system-inventory.md §3): rules are tried
// in order, the first whose operations include the operation and one of whose globs matches the
// path decides; no match allows. They gate the built-in file tools only — not the shell, MCP tools
// or anything else (the prompt is not a permission boundary; neither are these rules for `execute`).

export type FileOperation = "read" | "write";
export type PermissionMode = "allow" | "deny" | "ask";

/** Same shape as config-file's FilePermissionRule; `mode` defaults to "allow". */
export type FileRule = {
  operations: readonly FileOperation[];
  paths: readonly string[];
  mode?: PermissionMode;
};

type CompiledRule = {
  operations: readonly FileOperation[];
  mode: PermissionMode;
  patterns: string[];
  matchers: Array<(path: string) => boolean>;
};

/** Rules with their globs validated and compiled; build once per session with compileFileRules. */
export type CompiledFileRules = { readonly kind: "compiled-file-rules"; readonly rules: readonly CompiledRule[] };

export type PathCheck = { ok: true; path: string } | { ok: false; error: string };

/**
 * Validates a rule path or a tool path: non-empty, no NUL, absolute, no ".." or "~" segment.
 * Duplicate slashes are collapsed (and a trailing slash dropped); nothing else is normalised —
 * invalid paths are rejected, never repaired.
 */
export function validatePath(raw: unknown): PathCheck {
  if (typeof raw !== "string" || raw.length === 0) return { ok: false, error: "path must be a non-empty string" };
  if (raw.includes("\0")) return { ok: false, error: `path must not contain a NUL byte: ${JSON.stringify(raw)}` };
  if (!raw.startsWith("/")) return { ok: false, error: `path must be absolute: ${JSON.stringify(raw)}` };
  const segments = raw.split("/").filter((s) => s.length > 0);
  if (segments.includes("..")) return { ok: false, error: `path must not contain "..": ${JSON.stringify(raw)}` };
  if (segments.includes("~")) return { ok: false, error: `path must not contain "~": ${JSON.stringify(raw)}` };
  return { ok: true, path: `/${segments.join("/")}` };
}

export function permissionDeniedMessage(operation: FileOperation, path: string): string {
  return `permission denied for ${operation} on ${path}`;
}

export function deleteDeniedMessage(path: string, patterns: readonly string[]): string {
  return `permission denied for write on ${path} (matches deny rule(s): ${patterns.join(", ")})`;
}

/** Validates every rule path; invalid paths are dropped with an error diagnostic (they could never match). */
export function compileFileRules(
  rules: readonly FileRule[],
  source = "config.toml [[permissions]]",
): Loaded<CompiledFileRules> {
  const diagnostics: Diagnostic[] = [];
  const compiled: CompiledRule[] = [];
  rules.forEach((rule, index) => {
    const patterns: string[] = [];
    for (const raw of rule.paths) {
      const checked = validatePath(raw);
      if (checked.ok) patterns.push(checked.path);
      else
        diagnostics.push({ severity: "error", source, message: `rule ${index + 1}: ${checked.error} (path ignored)` });
    }
    if (patterns.length === 0) return;
    compiled.push({
      operations: rule.operations,
      mode: rule.mode ?? "allow",
      patterns,
      matchers: patterns.map((p) => picomatch(p, { dot: true })),
    });
  });
  return { items: { kind: "compiled-file-rules", rules: compiled }, diagnostics };
}

const compiledCache = new WeakMap<readonly FileRule[], CompiledFileRules>();

function asCompiled(rules: CompiledFileRules | readonly FileRule[]): CompiledFileRules {
  if (!Array.isArray(rules)) return rules as CompiledFileRules;
  const list = rules as readonly FileRule[];
  let compiled = compiledCache.get(list);
  if (!compiled) {
    compiled = compileFileRules(list).items;
    compiledCache.set(list, compiled);
  }
  return compiled;
}

/** First matching rule's mode; "allow" when none matches. `path` must be canonical (validatePath). */
export function decidePathAccess(
  rules: CompiledFileRules | readonly FileRule[],
  operation: FileOperation,
  path: string,
): PermissionMode {
  for (const rule of asCompiled(rules).rules) {
    if (!rule.operations.includes(operation)) continue;
    if (rule.matchers.some((match) => match(path))) return rule.mode;
  }
  return "allow";
}

export type ToolPathDecision =
  | { ok: true; path: string; decision: "allow" | "ask" }
  | { ok: false; path?: string; decision: "deny" | "invalid"; error: string };

/** Validate + decide for one tool path, with the error text the tool returns. */
export function checkToolPath(
  rules: CompiledFileRules | readonly FileRule[],
  operation: FileOperation,
  rawPath: string,
): ToolPathDecision {
  const checked = validatePath(rawPath);
  if (!checked.ok) return { ok: false, decision: "invalid", error: checked.error };
  const decision = decidePathAccess(rules, operation, checked.path);
  if (decision === "deny")
    return { ok: false, path: checked.path, decision, error: permissionDeniedMessage(operation, checked.path) };
  return { ok: true, path: checked.path, decision };
}

export type AccessPartition<T> = { allowed: T[]; ask: T[]; denied: T[] };

/**
 * Splits listing/search results by the decision for each entry's path (`ls` directories may end
 * with "/"). Entries whose path is not a valid absolute path are counted as denied.
 */
export function partitionByAccess<T>(
  rules: CompiledFileRules | readonly FileRule[],
  operation: FileOperation,
  items: readonly T[],
  pathOf: (item: T) => string,
): AccessPartition<T> {
  const out: AccessPartition<T> = { allowed: [], ask: [], denied: [] };
  const compiled = asCompiled(rules);
  if (compiled.rules.length === 0) return { allowed: [...items], ask: [], denied: [] };
  for (const item of items) {
    const checked = validatePath(pathOf(item));
    const decision = checked.ok ? decidePathAccess(compiled, operation, checked.path) : "deny";
    (decision === "allow" ? out.allowed : decision === "ask" ? out.ask : out.denied).push(item);
  }
  return out;
}

/** Entries the rules allow; "ask" entries are kept only when `askAllowed` (the call was approved). */
export function filterAllowed<T>(
  rules: CompiledFileRules | readonly FileRule[],
  operation: FileOperation,
  items: readonly T[],
  pathOf: (item: T) => string,
  options: { askAllowed?: boolean } = {},
): T[] {
  const compiled = asCompiled(rules);
  if (compiled.rules.length === 0) return [...items];
  return items.filter((item) => {
    const checked = validatePath(pathOf(item));
    if (!checked.ok) return false;
    const decision = decidePathAccess(compiled, operation, checked.path);
    return decision === "allow" || (decision === "ask" && options.askAllowed === true);
  });
}

/** Longest leading part of a glob without wildcards ("/secrets/**" -> "/secrets"). */
export function globAnchor(pattern: string): string {
  const kept: string[] = [];
  for (const segment of pattern.split("/").filter((s) => s.length > 0)) {
    if (/[*?[\]{}()!+@]/.test(segment)) break;
    kept.push(segment);
  }
  return `/${kept.join("/")}`;
}

function subtreesOverlap(a: string, b: string): boolean {
  return isWithinPosix(a, b) || isWithinPosix(b, a);
}

/**
 * Write-rule globs of `mode` that could match the directory `dir` or anything under it. With
 * `descendants` (the paths actually under `dir`), a glob counts when it matches `dir` or one of
 * them; without, any glob whose literal part overlaps the subtree counts (conservative).
 */
export function findDeletePatterns(
  rules: CompiledFileRules | readonly FileRule[],
  dir: string,
  mode: PermissionMode,
  descendants?: Iterable<string>,
): string[] {
  const found: string[] = [];
  const listed = descendants ? [...descendants] : undefined;
  for (const rule of asCompiled(rules).rules) {
    if (rule.mode !== mode || !rule.operations.includes("write")) continue;
    rule.patterns.forEach((pattern, i) => {
      const match = rule.matchers[i]!;
      const hit = listed
        ? match(dir) || listed.some((p) => match(p))
        : match(dir) || subtreesOverlap(dir, globAnchor(pattern));
      if (hit && !found.includes(pattern)) found.push(pattern);
    });
  }
  return found;
}

/** Deny-write globs that block deleting directory `dir`, whatever their order among the rules. */
export function findDeleteDenyPatterns(
  rules: CompiledFileRules | readonly FileRule[],
  dir: string,
  descendants?: Iterable<string>,
): string[] {
  return findDeletePatterns(rules, dir, "deny", descendants);
}

export type DeleteDecision = { decision: PermissionMode; patterns: string[]; error?: string };

/**
 * Decision for `delete` of a canonical path. A file uses first-match. A directory (or a path that
 * may be one) is denied when any deny-write glob reaches into it, asks when any ask-write glob
 * does, else uses first-match on the directory itself.
 */
export function decideDeleteAccess(
  rules: CompiledFileRules | readonly FileRule[],
  path: string,
  options: { isDirectory: boolean; descendants?: Iterable<string> },
): DeleteDecision {
  if (!options.isDirectory) {
    const decision = decidePathAccess(rules, "write", path);
    return decision === "deny"
      ? { decision, patterns: [], error: permissionDeniedMessage("write", path) }
      : { decision, patterns: [] };
  }
  const listed = options.descendants ? [...options.descendants] : undefined;
  const deny = findDeletePatterns(rules, path, "deny", listed);
  if (deny.length > 0) return { decision: "deny", patterns: deny, error: deleteDeniedMessage(path, deny) };
  const own = decidePathAccess(rules, "write", path);
  if (own === "ask") return { decision: "ask", patterns: [] };
  const ask = findDeletePatterns(rules, path, "ask", listed);
  return ask.length > 0 ? { decision: "ask", patterns: ask } : { decision: own, patterns: [] };
}
