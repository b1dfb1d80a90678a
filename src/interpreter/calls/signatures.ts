import type { ToolBinding } from "./ptc.js";

// TypeScript signatures for the `tools` namespace, generated from each tool's JSON Schema, so the
// model sees exactly the argument names and types validation will enforce.

type Schema = Record<string, unknown>;

const MAX_DEPTH = 6;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `async tools.readFile(input: { file_path: string; offset?: number }): Promise<string>` with a doc comment. */
export function toolSignature(binding: ToolBinding): string {
  const schema = asSchema(binding.tool.jsonSchema) ?? {};
  const type = schemaToTypeScript(schema);
  const optional = !hasRequired(schema) ? "?" : "";
  const summary = summarize(binding.tool.description);
  const doc = summary ? `/** ${summary} */\n` : "";
  return `${doc}async tools.${binding.callName}(input${optional}: ${type}): Promise<string>`;
}

/** A TypeScript type for a JSON Schema (draft 2020-12 subset); anything unrecognised is `unknown`. */
export function schemaToTypeScript(schema: unknown, root: Schema | null = null, depth = 0): string {
  if (schema === true || schema === undefined) return "unknown";
  if (schema === false) return "never";
  const s = asSchema(schema);
  if (!s || depth > MAX_DEPTH) return "unknown";
  const top = root ?? s;
  const next = (sub: unknown) => schemaToTypeScript(sub, top, depth + 1);

  if (typeof s.$ref === "string") return next(resolveRef(top, s.$ref));
  if ("const" in s) return literal(s.const);
  if (Array.isArray(s.enum)) return union(s.enum.map(literal));
  if (Array.isArray(s.anyOf)) return union(s.anyOf.map(next));
  if (Array.isArray(s.oneOf)) return union(s.oneOf.map(next));
  if (Array.isArray(s.allOf)) return s.allOf.map((part) => wrap(next(part))).join(" & ") || "unknown";

  const types = Array.isArray(s.type)
    ? s.type.filter((t): t is string => typeof t === "string")
    : typeof s.type === "string"
      ? [s.type]
      : [];
  if (types.length > 1) return union(types.map((t) => next({ ...s, type: t })));
  const type =
    types[0] ?? (s.properties || s.additionalProperties ? "object" : s.items || s.prefixItems ? "array" : undefined);
  switch (type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      if (Array.isArray(s.prefixItems)) return `[${s.prefixItems.map(next).join(", ")}]`;
      return `${wrap(next(s.items))}[]`;
    case "object":
      return objectType(s, next);
    default:
      return "unknown";
  }
}

function objectType(s: Schema, next: (sub: unknown) => string): string {
  const properties = asSchema(s.properties) ?? {};
  const required = new Set(
    Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === "string") : [],
  );
  const members = Object.entries(properties).map(([key, value]) => {
    const name = IDENTIFIER.test(key) ? key : JSON.stringify(key);
    return `${name}${required.has(key) ? "" : "?"}: ${next(value)}`;
  });
  const extra = s.additionalProperties;
  if (extra !== undefined && extra !== false)
    members.push(`[key: string]: ${extra === true ? "unknown" : next(extra)}`);
  if (members.length === 0) return extra === false ? "{}" : "Record<string, unknown>";
  return `{ ${members.join("; ")} }`;
}

function resolveRef(root: Schema, ref: string): unknown {
  const match = /^#\/(\$defs|definitions)\/(.+)$/.exec(ref);
  if (!match) return undefined;
  const defs = asSchema(root[match[1]!]);
  return defs?.[decodeURIComponent(match[2]!).replace(/~1/g, "/").replace(/~0/g, "~")];
}

function literal(value: unknown): string {
  return value === undefined ? "undefined" : JSON.stringify(value);
}

function union(members: string[]): string {
  const unique = [...new Set(members)];
  return unique.length === 0 ? "never" : unique.join(" | ");
}

function wrap(type: string): string {
  return /[|&]/.test(type) && !/^[{[]/.test(type) ? `(${type})` : type;
}

function hasRequired(schema: Schema): boolean {
  return Array.isArray(schema.required) && schema.required.length > 0;
}

function asSchema(value: unknown): Schema | null {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Schema) : null;
}

/** First sentence (or line) of a description, for a one-line doc comment. */
function summarize(description: string): string {
  const firstLine = description.trim().split("\n")[0] ?? "";
  const sentence = /^(.+?[.!?])(\s|$)/.exec(firstLine)?.[1] ?? firstLine;
  const clipped = sentence.length > 200 ? `${sentence.slice(0, 197)}...` : sentence;
  return clipped.replace(/\*\//g, "*\\/");
}
