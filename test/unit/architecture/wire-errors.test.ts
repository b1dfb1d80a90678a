import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Domain errors reach the wire in one place: src/acp/errors.ts makes every JSON-RPC error (its
// named constructors and the map from domain errors). Handlers throw those, domain modules throw
// their own errors; a RequestError built anywhere else is a second map.
const SRC = resolve(__dirname, "../../../src");
const ERROR_MAP = "acp/errors.ts";

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** `new RequestError(...)`, `new acp.RequestError(...)`, `RequestError.invalidParams(...)` and the like. */
const CONSTRUCTS = /\bnew\s+(?:[\w$]+\s*\.\s*)?RequestError\s*\(|\bRequestError\s*\.\s*[\w$]+\s*\(/;

describe("wire errors", () => {
  it("are constructed only in src/acp/errors.ts", () => {
    const offenders = sourceFiles(SRC)
      .filter((file) => relative(SRC, file) !== ERROR_MAP)
      .flatMap((file) =>
        readFileSync(file, "utf8")
          .split("\n")
          .flatMap((line, i) => (CONSTRUCTS.test(line) ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });

  it("the scan sees what it looks for", () => {
    expect(CONSTRUCTS.test("throw acp.RequestError.invalidParams({ modeId }, `unknown mode`);")).toBe(true);
    expect(CONSTRUCTS.test("new v2.RequestError(error.code, error.message, error.data)")).toBe(true);
    expect(CONSTRUCTS.test("if (error instanceof acp.RequestError) return error;")).toBe(false);
    expect(readFileSync(join(SRC, ERROR_MAP), "utf8")).toMatch(CONSTRUCTS);
  });
});
