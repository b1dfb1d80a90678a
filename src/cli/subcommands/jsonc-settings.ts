import {
  applyEdits,
  format,
  modify,
  parse,
  printParseErrorCode,
  type FormattingOptions,
  type ParseError,
} from "jsonc-parser";

export type JsonObject = { [key: string]: unknown };

export type MergeResult = { ok: true; text: string; replaced: boolean } | { ok: false; error: string };

/**
 * Puts `entry` at `[group, name]` in a JSONC settings text (Zed, VS Code and JetBrains files may hold
 * comments and trailing commas), editing only that spot so comments, key order and every other key
 * survive. An existing entry of the same name keeps the fields `entry` does not set (the user's `env`,
 * default mode, ...). A text that does not parse is refused: rewriting it could lose what we cannot read.
 */
export function mergeSettingsEntry(
  text: string,
  group: string,
  name: string,
  entry: JsonObject,
  seed: JsonObject = {},
): MergeResult {
  if (text.trim() === "")
    return { ok: true, text: `${JSON.stringify({ ...seed, [group]: { [name]: entry } }, null, 2)}\n`, replaced: false };
  const source = text;
  const errors: ParseError[] = [];
  const root: unknown = parse(source, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) return { ok: false, error: describeParseError(source, errors[0]!) };
  if (!isObject(root)) return { ok: false, error: "the file's top level is not a JSON object" };
  const existingGroup = root[group];
  if (existingGroup !== undefined && !isObject(existingGroup))
    return { ok: false, error: `"${group}" is not an object` };
  const formatting = formattingOf(source);
  let out = source;
  // Insert unformatted, then format only the inserted text: modify()'s own formatting also
  // reflows neighbouring entries the user wrote on one line.
  const set = (path: string[], value: unknown): void => {
    const edits = modify(out, path, value, {});
    if (edits.length !== 1) {
      out = applyEdits(out, modify(out, path, value, { formattingOptions: formatting }));
      return;
    }
    const edit = edits[0]!;
    out = applyEdits(out, edits);
    out = applyEdits(out, format(out, { offset: edit.offset, length: edit.content.length }, formatting));
  };
  // Keys the file should have when we create it (e.g. JetBrains' MCP toggles); never overwrite.
  for (const [key, value] of Object.entries(seed)) if (root[key] === undefined) set([key], value);
  const existing = existingGroup?.[name];
  if (isObject(existing)) {
    for (const [key, value] of Object.entries(entry)) {
      // Maps the user may have filled (env, default options) are kept whole; command and args are ours.
      if (isObject(value) && existing[key] !== undefined) continue;
      set([group, name, key], value);
    }
  } else {
    set([group, name], entry);
  }
  if (!out.endsWith("\n")) out += formatting.eol;
  return { ok: true, text: out, replaced: existing !== undefined };
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Follows the file's own indentation and line endings, so the edit looks like the rest of it. */
function formattingOf(text: string): FormattingOptions {
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const indent = /^([ \t]+)\S/m.exec(text)?.[1];
  if (indent?.startsWith("\t")) return { insertSpaces: false, tabSize: 1, eol };
  return { insertSpaces: true, tabSize: indent ? Math.min(indent.length, 8) : 2, eol };
}

function describeParseError(text: string, error: ParseError): string {
  const before = text.slice(0, error.offset);
  const line = before.split("\n").length;
  const column = error.offset - before.lastIndexOf("\n");
  return `${printParseErrorCode(error.error)} at line ${line}, column ${column}`;
}
