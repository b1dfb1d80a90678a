import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// DESIGN.md §2: imports point one way, cli -> acp -> session -> agent -> tools/model -> backends/...
// A folder may import folders of a strictly higher rank (and itself). Equal ranks are siblings
// that must not know each other.
const RANK: Record<string, number> = {
  cli: 0,
  acp: 1,
  session: 2,
  watch: 3,
  agent: 3,
  interpreter: 4,
  gate: 4,
  mcp: 4,
  tools: 5,
  model: 6,
  subagents: 6,
  hooks: 6,
  memory: 6,
  plugins: 6,
  skills: 7,
  backends: 7,
  permissions: 7,
  config: 8,
  util: 9,
};

const SRC = resolve(__dirname, "../../../src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports of a file, resolved to .ts paths (both static and dynamic import()). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["'](\.[^"']+)["']/g)].map((m) => m[1]!);
  return specifiers.map((s) => resolve(dirname(file), s).replace(/\.js$/, ".ts"));
}

const folderOf = (file: string) => relative(SRC, file).split("/")[0]!;

describe("architecture", () => {
  const files = sourceFiles(SRC);
  const graph = new Map(files.map((f) => [f, importsOf(f)]));

  it("puts every source folder in the layering table", () => {
    const folders = new Set(files.map(folderOf));
    expect([...folders].filter((f) => !(f in RANK) && !f.endsWith(".ts"))).toEqual([]);
  });

  it("only imports downward between folders", () => {
    const violations: string[] = [];
    for (const [file, imports] of graph) {
      const from = folderOf(file);
      for (const target of imports) {
        if (!target.startsWith(SRC)) continue;
        const to = folderOf(target);
        if (to === from) continue;
        if (!(RANK[to]! > RANK[from]!)) violations.push(`${relative(SRC, file)} -> ${relative(SRC, target)}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("only the acp folder imports the ACP SDK", () => {
    const offenders = files.filter((f) => folderOf(f) !== "acp" && /["']@agentclientprotocol\/sdk/.test(readFileSync(f, "utf8")) && folderOf(f) !== "cli");
    expect(offenders.map((f) => relative(SRC, f))).toEqual([]);
  });

  it("has no import cycles between files", () => {
    const state = new Map<string, "visiting" | "done">();
    const cycles: string[] = [];
    const visit = (file: string, stack: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "visiting") {
        cycles.push([...stack.slice(stack.indexOf(file)), file].map((f) => relative(SRC, f)).join(" -> "));
        return;
      }
      state.set(file, "visiting");
      for (const next of graph.get(file) ?? []) if (graph.has(next)) visit(next, [...stack, file]);
      state.set(file, "done");
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });
});
