import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

// Issue 25: no secret reaches a command. process.env still holds the model key (the agent needs it),
// so a child started with the default environment inherits it, and any command can read it from
// that child's /proc/<pid>/environ. Every process the agent starts is given its environment
// explicitly: an options object with `env` at every child_process call.

const SRC = resolve(__dirname, "../../../src");
const STARTERS = new Set(["spawn", "execFile", "exec", "fork", "spawnSync", "execFileSync", "execSync"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

/** Calls of child_process functions (by their local names) whose options have no `env`. */
function callsWithoutEnv(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const local = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement) || !ts.isStringLiteral(statement.moduleSpecifier)) continue;
    if (!/^(node:)?child_process$/.test(statement.moduleSpecifier.text)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (bindings && ts.isNamedImports(bindings))
      for (const element of bindings.elements)
        if (STARTERS.has((element.propertyName ?? element.name).text)) local.add(element.name.text);
  }
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && local.has(node.expression.text)) {
      const options = node.arguments.find(
        (arg) =>
          ts.isObjectLiteralExpression(arg) &&
          arg.properties.some(
            (p) =>
              p.name?.getText() === "stdio" ||
              p.name?.getText() === "cwd" ||
              p.name?.getText() === "env" ||
              p.name?.getText() === "timeout" ||
              p.name?.getText() === "detached",
          ),
      ) as ts.ObjectLiteralExpression | undefined;
      const hasEnv = options?.properties.some((p) => p.name?.getText() === "env" || ts.isSpreadAssignment(p));
      if (!hasEnv) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart());
        found.push(`${relative(SRC, file)}:${line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("child processes", () => {
  it("are all started with an explicit environment", () => {
    expect(sourceFiles(SRC).flatMap(callsWithoutEnv)).toEqual([]);
  });
});
