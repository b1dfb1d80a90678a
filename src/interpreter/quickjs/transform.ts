// Turns what the model wrote into a QuickJS global script.
//
// The script is evaluated with QuickJS's async-script flag, so top-level `await` works and the
// script's completion value (what a REPL prints: the last expression statement, the branch an
// `if` took, ...) is the result; no wrapping or "last expression" guessing is needed. What remains:
// - TypeScript-only syntax is stripped (sucrase).
// - Top-level `let`/`const` become `var`, and `class X {}` becomes `var X = class X {};`, so the
//   bindings live on globalThis: later evals see them and may declare them again (a REPL must
//   allow re-running `const x = ...`; global lexical bindings would throw "redeclaration").
//   The cost is that top-level `const` is not read-only across evals.
// - `import`/`export` declarations are rejected with a clear message (there are no modules).

export type TransformResult = { ok: true; code: string } | { ok: false; name: "SyntaxError"; message: string };

type SucraseToken = {
  type: number;
  start: number;
  end: number;
  scopeDepth: number;
  contextId: number | null;
  isExpression: boolean;
};
type SucraseParser = { parse(input: string, jsx: boolean, ts: boolean, flow: boolean): { tokens: SucraseToken[] } };
type SucraseTransform = (code: string, options: Record<string, unknown>) => { code: string };
type TokenTypes = Record<"_const" | "_let" | "_class" | "_import" | "_export" | "parenL" | "dot", number>;

type Sucrase = { transform: SucraseTransform; parser: SucraseParser; tt: TokenTypes };
let sucrase: Promise<Sucrase> | undefined;

// sucrase is an exact dependency; its parser (the token stream with scope depths) is not part of
// its documented API, so it is loaded by path. Both load lazily, with the first eval.
function loadSucrase(): Promise<Sucrase> {
  sucrase ??= Promise.all([
    import("sucrase"),
    import("sucrase/dist/parser/index.js" as string),
    import("sucrase/dist/parser/tokenizer/types.js" as string),
  ]).then(([main, parser, types]) => ({
    transform: pick<SucraseTransform>(main, "transform"),
    parser: { parse: pick<SucraseParser["parse"]>(parser, "parse") },
    tt: pick<TokenTypes>(types, "TokenType"),
  }));
  return sucrase;
}

function pick<T>(module: unknown, name: string): T {
  const m = module as Record<string, unknown> & { default?: Record<string, unknown> };
  const value = m[name] ?? m.default?.[name];
  if (value === undefined) throw new Error(`sucrase: missing export ${name}`);
  return value as T;
}

/** Call once before timing-sensitive work so the first eval does not pay for loading sucrase. */
export async function preloadTransform(): Promise<void> {
  await loadSucrase();
}

export async function transformForEval(source: string): Promise<TransformResult> {
  const { transform, parser, tt } = await loadSucrase();
  let js: string;
  let tokens: SucraseToken[];
  try {
    // keepUnusedImports: otherwise an unused `import x from "y"` silently disappears.
    js = transform(source, { transforms: ["typescript"], disableESTransforms: true, keepUnusedImports: true }).code;
    tokens = parser.parse(js, false, false, false).tokens;
  } catch (error) {
    return { ok: false, name: "SyntaxError", message: syntaxMessage(error) };
  }
  const edits: Edit[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.scopeDepth !== 0) continue;
    if (token.type === tt._const || token.type === tt._let) {
      edits.push({ start: token.start, end: token.end, text: "var" });
    } else if (token.type === tt._class && !token.isExpression) {
      const classEdits = hoistClass(tokens, i, js);
      if (classEdits) edits.push(...classEdits);
    } else if (token.type === tt._import || token.type === tt._export) {
      const next = tokens[i + 1];
      const dynamic = token.type === tt._import && next && (next.type === tt.parenL || next.type === tt.dot);
      if (!dynamic) {
        const word = js.slice(token.start, token.end);
        return {
          ok: false,
          name: "SyntaxError",
          message: `${word} declarations are not available in the interpreter (there are no modules; use the tools namespace)`,
        };
      }
    }
  }
  return { ok: true, code: applyEdits(js, edits) };
}

type Edit = { start: number; end: number; text: string };

/** `class X ... {}` -> `var X = class X ... {};` (the class keyword, its braces share a contextId). */
function hoistClass(tokens: SucraseToken[], index: number, js: string): Edit[] | null {
  const classToken = tokens[index]!;
  const nameToken = tokens[index + 1];
  if (!nameToken || classToken.contextId === null) return null;
  let close: SucraseToken | undefined;
  for (let j = tokens.length - 1; j > index; j--) {
    if (tokens[j]!.contextId === classToken.contextId) {
      close = tokens[j];
      break;
    }
  }
  if (!close) return null;
  const name = js.slice(nameToken.start, nameToken.end);
  return [
    { start: classToken.start, end: classToken.start, text: `var ${name} = ` },
    { start: close.end, end: close.end, text: ";" },
  ];
}

function applyEdits(code: string, edits: Edit[]): string {
  if (edits.length === 0) return code;
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  let out = "";
  let at = 0;
  for (const edit of sorted) {
    out += code.slice(at, edit.start) + edit.text;
    at = edit.end;
  }
  return out + code.slice(at);
}

function syntaxMessage(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.replace(/\s+/g, " ").trim() || "invalid syntax";
}
