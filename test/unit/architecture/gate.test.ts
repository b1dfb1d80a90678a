import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 12: src/gate/ is the only code that decides allow / ask / deny for files and commands.
// Everything else may ask the gate (gateToolCall, decideRestore), build its settings
// (createProtectedPaths, compileFileRules) or carry out its answer (approved-targets), but no
// decision function is called from outside it.

const SRC = resolve(__dirname, "../../../src");

/** Value imports of a file: [names, resolved module path relative to src]. Type-only imports are left out. */
function valueImports(file: string): Array<{ names: string[]; module: string }> {
  const text = readFileSync(file, "utf8");
  const found: Array<{ names: string[]; module: string }> = [];
  for (const match of text.matchAll(/import\s+(type\s+)?\{([^}]*)\}\s+from\s+["'](\.[^"']+)["']/g)) {
    if (match[1]) continue;
    const names = match[2]!
      .split(",")
      .map((n) => n.trim())
      .filter((n) => n && !n.startsWith("type "))
      .map((n) => n.split(/\s+as\s+/)[0]!);
    found.push({ names, module: relative(SRC, resolve(dirname(file), match[3]!)).replace(/\.js$/, ".ts") });
  }
  for (const match of text.matchAll(/import\(\s*["'](\.[^"']+)["']\s*\)/g)) {
    found.push({ names: ["*"], module: relative(SRC, resolve(dirname(file), match[1]!)).replace(/\.js$/, ".ts") });
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** What code outside src/gate may take from the gate and from the file-rule engine. */
const ALLOWED: Record<string, string[]> = {
  "gate/gate.ts": ["gateToolCall", "forgetCommandsChangedBy"],
  "gate/restore.ts": ["decideRestore"],
  "gate/mention.ts": ["decideMention"],
  "gate/project-file.ts": ["projectFileRefusal"],
  "gate/approval-memory.ts": ["createPersistentApprovalMemory", "createSessionApprovalMemory"],
  "gate/protected-paths.ts": ["createProtectedPaths", "DEFAULT_PROTECTED_PATHS"],
  "gate/guarded-backend.ts": ["createGuardedBackend"],
  "permissions/file-rules.ts": ["compileFileRules", "validatePath"],
};

describe("the gate is the only place that decides", () => {
  it("no code outside src/gate calls a decision function", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const own = relative(SRC, file);
      if (own.startsWith("gate/") || own.startsWith("permissions/")) continue;
      for (const { names, module } of valueImports(file)) {
        const guarded = module.startsWith("gate/") || module === "permissions/file-rules.ts";
        if (!guarded) continue;
        for (const name of names)
          if (!(ALLOWED[module] ?? []).includes(name)) violations.push(`${own} imports ${name} from ${module}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("the tool runner asks the gate for every call and has no pre-approval path", () => {
    const runner = readFileSync(join(SRC, "agent/tool-runner.ts"), "utf8");
    expect(runner).toContain("gateToolCall(");
    expect(runner).not.toMatch(/preApproved|decideByMode|commandPrefix/);
  });
});
