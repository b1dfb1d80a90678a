import { describe, expect, it } from "vitest";
import { compileMatcher, matches, type CompiledMatcher } from "../../../src/hooks/matcher.js";

function compiled(raw: string | undefined): CompiledMatcher {
  const result = compileMatcher(raw);
  if (!result.ok) throw new Error(result.error);
  return result.matcher;
}

describe("compileMatcher", () => {
  it.each([undefined, "", "*", "  "])("%j matches everything, even events without a matcher value", (raw) => {
    const m = compiled(raw);
    expect(m.kind).toBe("all");
    expect(matches(m, "Bash")).toBe(true);
    expect(matches(m, undefined)).toBe(true);
  });

  it("word lists are exact names split on | or ,", () => {
    const m = compiled("Edit|Write, Bash");
    expect(m.kind).toBe("exact");
    expect(["Edit", "Write", "Bash"].map((n) => matches(m, n))).toEqual([true, true, true]);
    expect(["MultiEdit", "Bas", "edit", "Write2"].map((n) => matches(m, n))).toEqual([false, false, false, false]);
  });

  it("an MCP tool name without regex characters is exact", () => {
    const m = compiled("mcp__github__create_issue");
    expect(m.kind).toBe("exact");
    expect(matches(m, "mcp__github__create_issue")).toBe(true);
    expect(matches(m, "mcp__github__create_issue_comment")).toBe(false);
  });

  it("anything else is an unanchored regex", () => {
    const m = compiled("mcp__.*__write");
    expect(m.kind).toBe("regex");
    expect(matches(m, "mcp__fs__write_file")).toBe(true);
    expect(matches(m, "Write")).toBe(false);
    const anchored = compiled("^(Read|LS)$");
    expect(matches(anchored, "LS")).toBe(true);
    expect(matches(anchored, "LSX")).toBe(false);
    expect(matches(compiled("Note.*"), "NotebookEdit")).toBe(true);
  });

  it("non-wildcards never match a missing value", () => {
    expect(matches(compiled("Bash"), undefined)).toBe(false);
    expect(matches(compiled("B.sh"), undefined)).toBe(false);
  });

  it("reports invalid regular expressions", () => {
    const result = compileMatcher("Bash(");
    expect(result.ok).toBe(false);
  });
});
