// Claude Code's matcher algorithm: empty or "*" matches everything; a string of word characters,
// spaces, commas, dashes and pipes is a set of exact names; anything else is an unanchored regex.

export type CompiledMatcher =
  | { kind: "all"; source: string }
  | { kind: "exact"; source: string; names: ReadonlySet<string> }
  | { kind: "regex"; source: string; regex: RegExp };

export type MatcherCompileResult = { ok: true; matcher: CompiledMatcher } | { ok: false; error: string };

// \p{L}\p{N}_ is Python's Unicode \w, which the reference implementation uses.
const EXACT_LIST = /^[\p{L}\p{N}_\s,\-|]+$/u;

export function compileMatcher(raw: string | undefined): MatcherCompileResult {
  const source = raw ?? "";
  const trimmed = source.trim();
  if (trimmed === "" || trimmed === "*") return { ok: true, matcher: { kind: "all", source } };
  if (EXACT_LIST.test(trimmed)) {
    const names = trimmed
      .split(/[|,]/)
      .map((name) => name.trim())
      .filter((name) => name !== "");
    return { ok: true, matcher: { kind: "exact", source, names: new Set(names) } };
  }
  try {
    return { ok: true, matcher: { kind: "regex", source, regex: new RegExp(source) } };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

export function isWildcard(matcher: CompiledMatcher): boolean {
  return matcher.kind === "all";
}

/** `value` undefined means the event has no matcher field; only wildcards match then. */
export function matches(matcher: CompiledMatcher, value: string | undefined): boolean {
  if (matcher.kind === "all") return true;
  if (value === undefined) return false;
  if (matcher.kind === "exact") return matcher.names.has(value);
  return matcher.regex.test(value);
}
