import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Issue 12: src/gate/ is the only code that decides allow / ask / deny for files and commands.
// Everything else may ask the gate (createToolCallGate, decideRestore), build its settings
// (createProtectedPaths, compileFileRules) or carry out its answer (approved-targets), but no
// decision function is called from outside it.

const SRC = resolve(__dirname, "../../../src");

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);

/** Names bound by a non-type import or re-export: "default" for a default import, "*" for a whole module. */
function boundNames(statement: ts.Statement): string[] | undefined {
  const named = (elements: readonly ts.ImportSpecifier[] | readonly ts.ExportSpecifier[]) =>
    elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text);
  if (ts.isImportDeclaration(statement)) {
    const clause = statement.importClause;
    if (!clause || clause.isTypeOnly) return clause ? undefined : [];
    const bindings = clause.namedBindings;
    return [
      ...(clause.name ? ["default"] : []),
      ...(bindings && ts.isNamespaceImport(bindings) ? ["*"] : []),
      ...(bindings && ts.isNamedImports(bindings) ? named(bindings.elements) : []),
    ];
  }
  if (ts.isExportDeclaration(statement) && statement.moduleSpecifier && !statement.isTypeOnly) {
    const clause = statement.exportClause;
    return !clause || ts.isNamespaceExport(clause) ? ["*"] : named(clause.elements);
  }
  return undefined;
}

/**
 * Value imports and re-exports of a file (parsed, so comments and strings play no part): [names,
 * resolved module path relative to src]. Type-only ones are left out; namespace, default and
 * dynamic imports and `export *` count as the names "*" or "default", which no allow-list holds.
 */
function valueImports(file: string): Array<{ names: string[]; module: string }> {
  const found: Array<{ names: string[]; module: string }> = [];
  const add = (names: string[], specifier: string) => {
    if (specifier.startsWith("."))
      found.push({ names, module: relative(SRC, resolve(dirname(file), specifier)).replace(/\.js$/, ".ts") });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) {
      const names = boundNames(node);
      if (names && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier))
        add(names, node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      add(["*"], node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return found;
}

/** Calls of `name(...)` in a file's code (not its comments or strings). */
function callsOf(file: string, name: string): number {
  let count = 0;
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === name) count++;
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return count;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** What code outside src/gate may take from the gate (file rules and remembered approvals live there too). */
const ALLOWED: Record<string, string[]> = {
  // The whole procedure for one tool call (issue 28): the agent builds one per turn and asks it.
  "gate/call/procedure.ts": ["createToolCallGate"],
  "gate/seams/restore.ts": ["decideRestore"],
  "gate/seams/mention.ts": ["decideMention"],
  "gate/seams/project-file.ts": ["projectFileRefusal"],
  "gate/memory/approval-memory.ts": ["createPersistentApprovalMemory", "createSessionApprovalMemory"],
  "gate/surfaces/protected-paths.ts": ["createProtectedPaths", "DEFAULT_PROTECTED_PATHS"],
  "gate/rules/guarded-backend.ts": ["createGuardedBackend"],
  // Round 3's entries, each one decision at its one seam: a relayed MCP form (acp/question-dialog.ts),
  // a project subagent's provider (turn/subagent-runner.ts), and the host execution surfaces the
  // gate and the sandbox share (session/workspace/workspace.ts builds the cache; container workspaces resolve
  // a tree's surfaces directly).
  "gate/decide/secret-question.ts": ["secretInForm"],
  "gate/seams/subagent-model.ts": ["subagentModelRefusal"],
  "gate/surfaces/host-surface-cache.ts": ["createHostSurfaceCache"],
  "gate/surfaces/host-surfaces.ts": ["resolveHostExecutionSurfaces"],
  "gate/rules/file-rules.ts": ["compileFileRules", "validatePath"],
  // Issue 28: the vocabulary the gate decides in (the one mode type) and where remembered
  // approvals are stored; naming a mode or opening the store decides nothing.
  "gate/decide/modes.ts": ["SESSION_MODES", "isSessionMode", "hookPermissionMode"],
  "gate/memory/approval-store.ts": ["createApprovalStore"],
  // What a mode offers: the turn's tools (turn/assembly.ts) and what eval's code may call (interpreter/).
  "gate/decide/offer.ts": ["offeredInMode", "callableFromCode", "readsOnly"],
  // Issue 34: /apply's writes to the host, each one a Write or Delete through the gate's rules and hooks.
  "gate/seams/apply-change.ts": ["screenApplyChange", "applyPermissionHook", "afterApplyWrite"],
  // Issue 35: the session's one door (session-wiring.ts builds it) and the askers other rooms get from it.
  "gate/door/door.ts": ["createDoor"],
  "gate/seams/through-door.ts": ["trustThroughDoor", "turnDoor", "reviewThroughDoor"],
  // Issue 37: a child agent's question about a change it makes with its own tools, judged by the file rules first.
  "gate/seams/peer-change.ts": ["peerChangeRefusal"],
  "gate/seams/peer-program.ts": ["peerProgram"],
  // The one store of remembered decisions of every kind (/permissions lists and revokes through it,
  // every kind's answer is written and read through it, by the one key shape).
  "gate/memory/remembered.ts": ["createRemembered", "rememberedKey"],
};

describe("the gate is the only place that decides", () => {
  it("the import scan sees namespace, default and dynamic imports and re-exports, not type-only ones", () => {
    const sample = join(SRC, "acp", "sample.ts");
    const scan = (text: string) => {
      const file = ts.createSourceFile(sample, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      return file.statements.flatMap((st) => boundNames(st) ?? []);
    };
    expect(scan(`import * as g from "../../../src/gate/seams/restore.js";`)).toEqual(["*"]);
    expect(scan(`import g, { decideRestore as d, type X } from "../../../src/gate/seams/restore.js";`)).toEqual([
      "default",
      "decideRestore",
    ]);
    expect(
      scan(
        `export { decideRestore } from "../../../src/gate/seams/restore.js"; export * from "../../../src/gate/call/gate.js";`,
      ),
    ).toEqual(["decideRestore", "*"]);
    expect(
      scan(
        `import type * as g from "../../../src/gate/seams/restore.js"; export type { X } from "../../../src/gate/call/gate.js";`,
      ),
    ).toEqual([]);
  });

  it("no code outside src/gate calls a decision function", () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const own = relative(SRC, file);
      if (own.startsWith("gate/")) continue;
      for (const { names, module } of valueImports(file)) {
        if (!module.startsWith("gate/")) continue;
        for (const name of names)
          if (!(ALLOWED[module] ?? []).includes(name)) violations.push(`${own} imports ${name} from ${module}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it("the tool runner asks the gate for every call and has no pre-approval path", () => {
    const runner = readFileSync(join(SRC, "agent/tool-runner.ts"), "utf8");
    const procedure = readFileSync(join(SRC, "gate/call/procedure.ts"), "utf8");
    // Issue 28: the runner hands every call to the gate's procedure, which asks gateToolCall.
    expect(runner).toContain("env.gate.authorize(");
    expect(procedure).toContain("gateToolCall(");
    // A real call, not a mention in a comment or a string.
    expect(callsOf(join(SRC, "gate/call/procedure.ts"), "gateToolCall")).toBeGreaterThan(0);
    expect(runner).not.toMatch(/preApproved|decideByMode|commandPrefix/);
    expect(procedure).not.toMatch(/preApproved|decideByMode|commandPrefix/);
  });

  it("the procedure around a decision lives in the gate: the agent imports no part of it", () => {
    // Hooks' verdicts, re-deciding, the dialog lock, remembered answers, the approver and
    // remembering are carried out in gate/call/procedure.ts; the agent holds only its ToolCallGate.
    const parts = ["gate/door/approver.ts", "gate/door/door.ts", "gate/call/gate.ts", "gate/decide/decide.ts"];
    const violations: string[] = [];
    for (const file of sourceFiles(join(SRC, "agent"))) {
      const own = relative(SRC, file);
      const text = readFileSync(file, "utf8");
      const imports = [...text.matchAll(/from\s+["'](\.[^"']+)["']/g)].map((m) =>
        relative(SRC, resolve(dirname(file), m[1]!)).replace(/\.js$/, ".ts"),
      );
      for (const module of imports)
        if (parts.includes(module) || module.startsWith("gate/memory/")) violations.push(`${own} imports ${module}`);
      for (const name of ["requestApproval", "remember", "lookup", "forgetCommandsChangedBy", "createMutex"])
        if (new RegExp(`\\b${name}\\(`).test(text)) violations.push(`${own} calls ${name}`);
    }
    expect(violations).toEqual([]);
  });

  it("approved real paths travel in the call: the backend is bound to them, no async context carries them", () => {
    const carriers = sourceFiles(SRC).filter((f) => /AsyncLocalStorage/.test(readFileSync(f, "utf8")));
    expect(carriers.map((f) => relative(SRC, f))).toEqual([]);
    expect(readFileSync(join(SRC, "agent/tool-runner.ts"), "utf8")).toContain("backendForCall(context.backend");
  });
});
