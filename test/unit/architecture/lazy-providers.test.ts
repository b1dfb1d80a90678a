import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// DESIGN.md §2: start-up loads no model SDK. The provider clients (src/model/providers/) are reached
// from outside their folder only by import() (model/client/provider-loaders.ts), which the build
// turns into files of their own under dist/lazy/, or by `import type`, which loads nothing.

const SRC = resolve(__dirname, "../../../src");
const PROVIDERS = join(SRC, "model/providers");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

describe("provider clients", () => {
  it("are imported from outside model/providers/ only lazily or as types", () => {
    const eager: string[] = [];
    for (const file of sourceFiles(SRC).filter((f) => !f.startsWith(`${PROVIDERS}/`))) {
      const text = readFileSync(file, "utf8");
      for (const m of text.matchAll(/^\s*(import|export)(\s+type)?\b[^"';]*?from\s+["'](\.[^"']+)["']/gm)) {
        const target = resolve(dirname(file), m[3]!);
        if (target.startsWith(`${PROVIDERS}/`) && !m[2]) eager.push(`${relative(SRC, file)} -> ${m[3]}`);
      }
    }
    expect(eager).toEqual([]);
  });

  it("are each loaded by the provider table", () => {
    const table = readFileSync(join(SRC, "model/client/provider-loaders.ts"), "utf8");
    const loaded = new Set([...table.matchAll(/import\("\.\.\/providers\/([a-z-]+)\.js"\)/g)].map((m) => m[1]));
    const entries = readdirSync(PROVIDERS)
      .filter((name) => name.endsWith(".ts") && !name.endsWith("-messages.ts"))
      .map((name) => name.replace(/\.ts$/, ""));
    expect(entries.filter((name) => !loaded.has(name))).toEqual([]);
  });
});
