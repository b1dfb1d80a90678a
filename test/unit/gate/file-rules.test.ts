import { describe, expect, it } from "vitest";
import {
  checkToolPath,
  compileFileRules,
  decideDeleteAccess,
  decidePathAccess,
  filterAllowed,
  findDeleteDenyPatterns,
  partitionByAccess,
  validatePath,
  type FileRule,
} from "../../../src/gate/rules/file-rules.js";

describe("validatePath", () => {
  it("accepts absolute paths and collapses duplicate slashes", () => {
    expect(validatePath("/a//b///c/")).toEqual({ ok: true, path: "/a/b/c" });
    expect(validatePath("/")).toEqual({ ok: true, path: "/" });
    expect(validatePath("/a/.../b")).toEqual({ ok: true, path: "/a/.../b" });
  });

  it("rejects what the reference rejects, with its messages", () => {
    expect(validatePath("")).toEqual({ ok: false, error: "path must be a non-empty string" });
    expect(validatePath("rel/x")).toEqual({ ok: false, error: 'path must be absolute: "rel/x"' });
    expect(validatePath("/a/../b")).toEqual({ ok: false, error: 'path must not contain "..": "/a/../b"' });
    expect(validatePath("/home/~/x")).toEqual({ ok: false, error: 'path must not contain "~": "/home/~/x"' });
    expect(validatePath("~/x")).toEqual({ ok: false, error: 'path must be absolute: "~/x"' });
    expect(validatePath("/a\0b").ok).toBe(false);
  });
});

const rules: FileRule[] = [
  { operations: ["write"], paths: ["/proj/generated/**"], mode: "deny" },
  { operations: ["read", "write"], paths: ["/proj/.env", "/proj/secrets/**"], mode: "deny" },
  { operations: ["write"], paths: ["/proj/src/**/*.{ts,tsx}"], mode: "ask" },
  { operations: ["read"], paths: ["/proj/**"] },
  { operations: ["read"], paths: ["/proj/private/**"], mode: "deny" },
];

describe("decidePathAccess", () => {
  it("uses the first rule whose operation and glob match, allowing when none does", () => {
    expect(decidePathAccess(rules, "write", "/proj/generated/x.js")).toBe("deny");
    expect(decidePathAccess(rules, "read", "/proj/generated/x.js")).toBe("allow");
    expect(decidePathAccess(rules, "read", "/proj/.env")).toBe("deny");
    expect(decidePathAccess(rules, "read", "/proj/secrets/deep/key.pem")).toBe("deny");
    expect(decidePathAccess(rules, "read", "/proj/secrets")).toBe("deny");
    expect(decidePathAccess(rules, "write", "/proj/src/a/b.tsx")).toBe("ask");
    expect(decidePathAccess(rules, "write", "/proj/src/a/b.css")).toBe("allow");
    // The earlier allow rule for /proj/** shadows the later deny.
    expect(decidePathAccess(rules, "read", "/proj/private/x")).toBe("allow");
    expect(decidePathAccess(rules, "write", "/elsewhere/file")).toBe("allow");
  });

  it("matches dotfiles with * and **", () => {
    const hidden: FileRule[] = [{ operations: ["read"], paths: ["/home/me/*"], mode: "deny" }];
    expect(decidePathAccess(hidden, "read", "/home/me/.ssh")).toBe("deny");
    expect(decidePathAccess(hidden, "read", "/home/me/.ssh/id_rsa")).toBe("allow");
  });

  it("reports invalid rule paths as diagnostics and ignores them", () => {
    const compiled = compileFileRules(
      [{ operations: ["read"], paths: ["~/.ssh/**", "relative/**", "/ok/**"], mode: "deny" }],
      "config.toml",
    );
    expect(compiled.diagnostics.map((d) => d.message)).toEqual([
      'rule 1: path must be absolute: "~/.ssh/**" (path ignored)',
      'rule 1: path must be absolute: "relative/**" (path ignored)',
    ]);
    expect(decidePathAccess(compiled.items, "read", "/ok/x")).toBe("deny");
  });
});

describe("checkToolPath", () => {
  it("validates then decides, with the tool's error texts", () => {
    expect(checkToolPath(rules, "read", "/proj//.env")).toEqual({
      ok: false,
      path: "/proj/.env",
      decision: "deny",
      error: "permission denied for read on /proj/.env",
    });
    expect(checkToolPath(rules, "write", "/proj/src/x.ts")).toEqual({
      ok: true,
      path: "/proj/src/x.ts",
      decision: "ask",
    });
    expect(checkToolPath(rules, "read", "/proj/../etc/passwd")).toMatchObject({ ok: false, decision: "invalid" });
  });
});

describe("filtering results", () => {
  it("drops denied entries and separates ask ones; ls directories may end with /", () => {
    const entries = ["/proj/a.ts", "/proj/secrets/", "/proj/.env", "/proj/src/x.ts", "relative"].map((path) => ({
      path,
    }));
    const parts = partitionByAccess(rules, "read", entries, (e) => e.path);
    expect(parts.allowed.map((e) => e.path)).toEqual(["/proj/a.ts", "/proj/src/x.ts"]);
    expect(parts.denied.map((e) => e.path)).toEqual(["/proj/secrets/", "/proj/.env", "relative"]);
    const writes = filterAllowed(rules, "write", entries, (e) => e.path);
    expect(writes.map((e) => e.path)).toEqual(["/proj/a.ts"]);
    const approved = filterAllowed(rules, "write", entries, (e) => e.path, { askAllowed: true });
    expect(approved.map((e) => e.path)).toEqual(["/proj/a.ts", "/proj/src/x.ts"]);
  });
});

describe("directory deletes", () => {
  const ordered: FileRule[] = [
    { operations: ["write"], paths: ["/proj/**"], mode: "allow" },
    { operations: ["write"], paths: ["/proj/keep/**"], mode: "deny" },
    { operations: ["write"], paths: ["/proj/**/*.lock"], mode: "deny" },
  ];

  it("blocks when any deny-write rule reaches into the directory, whatever the order", () => {
    expect(findDeleteDenyPatterns(ordered, "/proj")).toEqual(["/proj/keep/**", "/proj/**/*.lock"]);
    expect(findDeleteDenyPatterns(ordered, "/proj/keep/sub")).toEqual(["/proj/keep/**", "/proj/**/*.lock"]);
    expect(findDeleteDenyPatterns(ordered, "/other")).toEqual([]);
    expect(findDeleteDenyPatterns(ordered, "/proj/src", ["/proj/src/a.ts", "/proj/src/b/c.ts"])).toEqual([]);
    expect(findDeleteDenyPatterns(ordered, "/proj/src", ["/proj/src/a.ts", "/proj/src/yarn.lock"])).toEqual([
      "/proj/**/*.lock",
    ]);
    expect(decideDeleteAccess(ordered, "/proj", { isDirectory: true })).toEqual({
      decision: "deny",
      patterns: ["/proj/keep/**", "/proj/**/*.lock"],
      error: "permission denied for write on /proj (matches deny rule(s): /proj/keep/**, /proj/**/*.lock)",
    });
  });

  it("uses first-match for files and asks when an ask rule reaches into a directory", () => {
    expect(decideDeleteAccess(ordered, "/proj/keep/a.txt", { isDirectory: false })).toEqual({
      decision: "allow",
      patterns: [],
    });
    const asking: FileRule[] = [{ operations: ["write"], paths: ["/proj/docs/**"], mode: "ask" }];
    expect(decideDeleteAccess(asking, "/proj", { isDirectory: true })).toEqual({
      decision: "ask",
      patterns: ["/proj/docs/**"],
    });
    expect(decideDeleteAccess(asking, "/proj/src", { isDirectory: true })).toEqual({ decision: "allow", patterns: [] });
  });
});
