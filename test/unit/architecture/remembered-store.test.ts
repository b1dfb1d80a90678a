import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { describe, expect, it } from "vitest";

// Issue 35: one store of remembered decisions. Every "always", "never" and "for this session"
// answer is written through gate/memory/remembered.ts; the per-kind files stay its backings, and
// only the store's backings (listed here) may call the write of one. A module that opens a kind's
// file and writes a decision into it, or is handed a kind's raw store and writes through it, would
// keep a decision /permissions cannot see the way it was made.

const SRC = resolve(__dirname, "../../../src");

/** Each kind's store factory and its methods that write a decision. */
const WRITERS: Record<string, string[]> = {
  createApprovalStore: ["remember"],
  createMcpTrustStore: ["approve", "deny"],
  createHookTrustStore: ["trust"],
  createSkillTrustStore: ["approve"],
  createDevContainerTrust: ["trust"],
};

/** The store, and the backings it writes through (each defines or adapts one kind's file). */
const BACKINGS = new Set([
  "gate/memory/approval-memory.ts",
  "gate/memory/approval-store.ts",
  "gate/memory/remembered.ts",
  "mcp/trust/trust-memory.ts",
  "mcp/trust/trust-store.ts",
  "hooks/trust-store.ts",
  "skills/trust-store.ts",
  "backends/container/devcontainer/devcontainer-trust.ts",
  "extensions/remembered-stores.ts",
  "session/workspace/container/devcontainer-memory.ts",
]);

/** What the kinds' files are called: only their own store module names them (and the watcher, which only watches). */
const WATCHER = "watch/targets.ts";
const FILES: Record<string, string> = {
  "approvals.json": "gate/memory/approval-store.ts",
  "mcp_trust.json": "mcp/trust/trust-store.ts",
  "hooks_trust.json": "hooks/trust-store.ts",
  "skill_trust.json": "skills/trust-store.ts",
  "devcontainer_trust.json": "backends/container/devcontainer/devcontainer-trust.ts",
};

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Writes of a decision in one file's text: through a kind's own store, or a store it was handed. */
export function decisionWrites(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const found: string[] = [];
  for (const [factory, methods] of Object.entries(WRITERS)) {
    if (!new RegExp(`\\b${factory}\\b`).test(code)) continue;
    for (const method of methods)
      if (new RegExp(`\\.${method}\\(`).test(code)) found.push(`${factory}(...).${method}()`);
  }
  // A raw store handed in (options.store, store, trustStore) and written through.
  for (const match of code.matchAll(/\b\w*[sS]tore\??\.(approve|deny|trust|remember)\(/g)) found.push(match[0]);
  return [...new Set(found)];
}

describe("one store of remembered decisions", () => {
  it("recognises a write of a decision outside the store", () => {
    expect(decisionWrites(`const s = createSkillTrustStore({ stateDir }); await s.approve(dir);`)).toEqual([
      "createSkillTrustStore(...).approve()",
    ]);
    expect(decisionWrites(`await options.store.deny(root, name);`)).toEqual(["store.deny("]);
    expect(decisionWrites(`await store.trust(plan); // createDevContainerTrust`)).toEqual(["store.trust("]);
    expect(decisionWrites(`await remembered.remember(key, "allow", "project", label);`)).toEqual([]);
    expect(decisionWrites(`const entry = await createHookTrustStore({ stateDir }).entry(root);`)).toEqual([]);
  });

  it("no module but the store and its backings writes a remembered decision", () => {
    const violations = sources(SRC).flatMap((path) => {
      const rel = relative(SRC, path).split("\\").join("/");
      if (BACKINGS.has(rel)) return [];
      return decisionWrites(readFileSync(path, "utf8")).map((write) => `${rel}: ${write}`);
    });
    expect(violations).toEqual([]);
  });

  it("only each kind's own store module names its file", () => {
    const violations = sources(SRC).flatMap((path) => {
      const rel = relative(SRC, path).split("\\").join("/");
      if (rel === WATCHER) return [];
      const code = readFileSync(path, "utf8")
        .replace(/\/\*[\s\S]*?\*\//g, "")
        .replace(/\/\/.*$/gm, "");
      return Object.entries(FILES)
        .filter(([file, owner]) => owner !== rel && new RegExp(`["'\`]${file.replace(".", "\\.")}["'\`]`).test(code))
        .map(([file]) => `${rel} names ${file}`);
    });
    expect(violations).toEqual([]);
  });
});
