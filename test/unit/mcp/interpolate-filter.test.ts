import { describe, expect, it } from "vitest";
import { canonicalJson, fingerprintServer } from "../../../src/mcp/config/fingerprint.js";
import { fnmatch } from "../../../src/mcp/config/fnmatch.js";
import { interpolate, lookupFrom, resolveServerDefinition } from "../../../src/mcp/config/interpolate.js";
import { applyToolFilter } from "../../../src/mcp/config/tool-filter.js";
import { isCoherentlyReadOnly } from "../../../src/mcp/servers/annotations.js";
import { stdioServerEnvironment } from "../../../src/mcp/config/environment.js";
import { entry } from "./helpers.js";

describe("interpolation", () => {
  const env = lookupFrom({ HOME: "/home/u", EMPTY: "", TOKEN: "s3cret" });

  it("expands ${VAR} and ${VAR:-default} on unset and empty, leaves bare $VAR alone", () => {
    expect(interpolate("${HOME}/bin", env)).toEqual({ ok: true, value: "/home/u/bin" });
    expect(interpolate("${UNSET:-fallback}", env)).toEqual({ ok: true, value: "fallback" });
    expect(interpolate("${EMPTY:-fallback}", env)).toEqual({ ok: true, value: "fallback" });
    expect(interpolate("${HOME:-fallback}", env)).toEqual({ ok: true, value: "/home/u" });
    expect(interpolate("${UNSET:-}", env)).toEqual({ ok: true, value: "" });
    expect(interpolate("$HOME and $TOKEN", env)).toEqual({ ok: true, value: "$HOME and $TOKEN" });
    expect(interpolate("${EMPTY}", env)).toEqual({ ok: true, value: "" });
  });

  it("rejects unset variables without a default and malformed placeholders", () => {
    expect(interpolate("${NOPE}", env)).toEqual({ ok: false, error: "environment variable NOPE is not set" });
    expect(interpolate("${VAR-default}", env)).toMatchObject({ ok: false, error: expect.stringMatching(/malformed/) });
    expect(interpolate("${1X}", env)).toMatchObject({ ok: false });
    expect(interpolate("x ${HOME", env)).toMatchObject({ ok: false, error: expect.stringMatching(/unterminated/) });
  });

  it("expands command, args, env, url and headers, naming the field but never a value", () => {
    const stdio = entry("s", {
      command: "${HOME}/bin/srv",
      args: ["--token=${TOKEN}"],
      env: { KEY: "${TOKEN}" },
    }).definition!;
    expect(resolveServerDefinition(stdio, env)).toMatchObject({
      ok: true,
      server: { command: "/home/u/bin/srv", args: ["--token=s3cret"], env: { KEY: "s3cret" } },
    });
    const remote = entry("r", {
      url: "https://${HOST:-api.test}/mcp",
      headers: { Authorization: "Bearer ${TOKEN}", "X-Missing": "${MISSING_KEY}" },
    }).definition!;
    const failed = resolveServerDefinition(remote, env);
    expect(failed).toEqual({ ok: false, error: "headers.X-Missing: environment variable MISSING_KEY is not set" });
    const badUrl = entry("u", { url: "${TOKEN}" }).definition!;
    const result = resolveServerDefinition(badUrl, env);
    expect(result.ok).toBe(false);
    expect(JSON.stringify(result)).not.toContain("s3cret");
  });

  it("lets plugin variables win over the environment", () => {
    const lookup = lookupFrom({ ROOT: "/plugin" }, { ROOT: "/env", OTHER: "o" });
    expect(interpolate("${ROOT}/${OTHER}", lookup)).toEqual({ ok: true, value: "/plugin/o" });
  });
});

describe("tool filters", () => {
  const tools = ["read_file", "write_file", "search", "delete-all"];

  it("keeps only allowed tools, matching bare and server-prefixed names, literal or glob", () => {
    const outcome = applyToolFilter("fs", tools, { mode: "allow", patterns: ["read_*", "fs_search", "nothing_*"] });
    expect(outcome).toEqual({
      kept: ["read_file", "search"],
      removed: ["write_file", "delete-all"],
      unmatched: ["nothing_*"],
    });
  });

  it("removes disabled tools", () => {
    expect(applyToolFilter("fs", tools, { mode: "deny", patterns: ["fs_delete-*", "write_file"] })).toEqual({
      kept: ["read_file", "search"],
      removed: ["write_file", "delete-all"],
      unmatched: [],
    });
  });

  it("treats entries without glob characters literally", () => {
    expect(applyToolFilter("fs", ["a.b", "axb"], { mode: "allow", patterns: ["a.b"] }).kept).toEqual(["a.b"]);
  });

  it("implements fnmatchcase: * spans everything, ? one char, [seq] and [!seq], case-sensitive", () => {
    expect(fnmatch("srv_a/b.c", "srv_*")).toBe(true);
    expect(fnmatch("get1", "get?")).toBe(true);
    expect(fnmatch("get12", "get?")).toBe(false);
    expect(fnmatch("getb", "get[abc]")).toBe(true);
    expect(fnmatch("getd", "get[!abc]")).toBe(true);
    expect(fnmatch("geta", "get[!abc]")).toBe(false);
    expect(fnmatch("Read", "read*")).toBe(false);
    expect(fnmatch("a[b", "a[b")).toBe(true);
    expect(fnmatch("a.b", "a.b")).toBe(true);
    expect(fnmatch("axb", "a.b")).toBe(false);
    expect(fnmatch("x-3", "x-[0-9]")).toBe(true);
  });
});

describe("fingerprints", () => {
  it("hash the canonical JSON with sorted keys and compact separators", () => {
    expect(canonicalJson({ b: [1, { d: "é", c: null }], a: true })).toBe('{"a":true,"b":[1,{"c":null,"d":"é"}]}');
    // Values computed with Python: json.dumps(d, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expect(fingerprintServer({ command: "npx", args: ["-y", "x"] })).toBe(
      "sha256:4d6cc2e655e4ab1a2ecb8a88e12a6849bea5170d04c3bb0b9831067083d5a12f",
    );
    expect(fingerprintServer({ url: "https://ex.test/mcp", headers: { "X-Ä": "ü ${T}" }, type: "http" })).toBe(
      "sha256:9b4b845b36b743bcebd731b3f6d42a0762309b4bff1250a2b38df7dc178e6beb",
    );
  });

  it("are stable under key order and change with any field", () => {
    const a = fingerprintServer({ command: "x", args: ["1"], env: { A: "1", B: "2" } });
    expect(fingerprintServer({ env: { B: "2", A: "1" }, args: ["1"], command: "x" })).toBe(a);
    expect(fingerprintServer({ command: "x", args: ["2"], env: { A: "1", B: "2" } })).not.toBe(a);
    expect(fingerprintServer({ command: "x", args: ["1"], env: { A: "1", B: "3" } })).not.toBe(a);
  });
});

describe("annotations", () => {
  it("count as read-only only when coherent", () => {
    expect(isCoherentlyReadOnly({ readOnlyHint: true })).toBe(true);
    expect(
      isCoherentlyReadOnly({ readOnlyHint: true, destructiveHint: false, idempotentHint: null, openWorldHint: true }),
    ).toBe(true);
    expect(isCoherentlyReadOnly({ readOnlyHint: true, destructiveHint: true })).toBe(false);
    expect(isCoherentlyReadOnly({ readOnlyHint: "true" })).toBe(false);
    expect(isCoherentlyReadOnly({ readOnlyHint: true, openWorldHint: "no" })).toBe(false);
    expect(isCoherentlyReadOnly({ readOnlyHint: false })).toBe(false);
    expect(isCoherentlyReadOnly(undefined)).toBe(false);
  });
});

describe("stdio environment", () => {
  it("keeps the allowlist, drops secrets and NODE_OPTIONS, and adds configured env", () => {
    const env = stdioServerEnvironment(
      {
        PATH: "/bin",
        HOME: "/h",
        LC_ALL: "C",
        ANTHROPIC_API_KEY: "k",
        GITHUB_TOKEN: "t",
        NODE_OPTIONS: "--inspect",
        TERM: "() { :; }",
      },
      { GITHUB_TOKEN: "given", EXTRA: "1" },
    );
    expect(env).toEqual({ PATH: "/bin", HOME: "/h", LC_ALL: "C", GITHUB_TOKEN: "given", EXTRA: "1" });
  });
});
