import { describe, expect, it } from "vitest";
import { parseFrontmatter } from "../../../src/skills/frontmatter.js";
import { isStrictSkillName, parseSkillFile, skillNameProblem } from "../../../src/skills/validate.js";

describe("parseFrontmatter", () => {
  it("splits YAML frontmatter from the body", () => {
    const result = parseFrontmatter("---\nname: a\ndescription: b\n---\n# Body\n");
    expect(result).toEqual({ ok: true, data: { name: "a", description: "b" }, body: "# Body\n" });
  });

  it("accepts CRLF line endings and a byte-order mark", () => {
    const result = parseFrontmatter("\uFEFF---\r\nname: a\r\ndescription: b\r\n---\r\nBody");
    expect(result.ok && result.data).toEqual({ name: "a", description: "b" });
  });

  it("requires a newline after the closing delimiter unless lenient", () => {
    expect(parseFrontmatter("---\ndescription: x\n---").ok).toBe(false);
    expect(parseFrontmatter("---\ndescription: x\n---", { lenient: true })).toMatchObject({ ok: true, body: "" });
  });

  it("reports invalid YAML and non-mapping frontmatter", () => {
    const bad = parseFrontmatter("---\nname: [oops\n---\n");
    expect(bad.ok).toBe(false);
    expect(!bad.ok && bad.error).toMatch(/invalid YAML/);
    const list = parseFrontmatter("---\n- a\n- b\n---\n");
    expect(!list.ok && list.error).toMatch(/mapping/);
  });
});

describe("skill name rules", () => {
  it("accepts spec names, including Unicode lowercase", () => {
    expect(skillNameProblem("code-review", "code-review")).toBeUndefined();
    expect(skillNameProblem("café-2", "café-2")).toBeUndefined();
  });

  it.each([
    ["Bad", "Bad", /lowercase/],
    ["-lead", "-lead", /lowercase/],
    ["trail-", "trail-", /lowercase/],
    ["dou--ble", "dou--ble", /lowercase/],
    ["a".repeat(65), "a".repeat(65), /64/],
    ["right", "wrong", /does not match directory/],
  ])("flags %s", (name, dir, pattern) => {
    expect(skillNameProblem(name, dir)).toMatch(pattern);
  });

  it("uses a stricter ASCII rule for names we create", () => {
    expect(isStrictSkillName("my-skill-2")).toBe(true);
    expect(isStrictSkillName("café")).toBe(false);
    expect(isStrictSkillName("a--b")).toBe(false);
  });
});

describe("parseSkillFile", () => {
  it("warns about name problems but keeps the skill", () => {
    const parsed = parseSkillFile("---\nname: other\ndescription: d\n---\n", "/s/dir/SKILL.md", "dir");
    expect(parsed.metadata?.name).toBe("other");
    expect(parsed.diagnostics).toEqual([
      expect.objectContaining({ severity: "warning", message: expect.stringMatching(/does not match directory/) }),
    ]);
  });

  it("skips a skill without a name or description", () => {
    const parsed = parseSkillFile("---\ndescription: d\n---\n", "/s/x/SKILL.md", "x");
    expect(parsed.metadata).toBeUndefined();
    expect(parsed.diagnostics[0]).toMatchObject({
      severity: "error",
      message: expect.stringMatching(/missing required name/),
    });
  });

  it("coerces scalar fields and metadata to strings", () => {
    const parsed = parseSkillFile(
      "---\nname: 42\ndescription: 7\nmetadata:\n  n: 1\n  b: true\n---\n",
      "/s/42/SKILL.md",
      "42",
    );
    expect(parsed.metadata).toMatchObject({ name: "42", description: "7", metadata: { n: "1", b: "true" } });
  });
});
