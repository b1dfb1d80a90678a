import type { Diagnostic } from "../../util/diagnostics.js";
import { errorMessage } from "../../util/errors.js";
import { InvalidMetaError, InvalidRecordError } from "./errors.js";
import type { MetaExtra, MetaPatch, NewSessionMeta, SessionMeta, StoreRecord } from "./types.js";

// The text format of one session log (pure functions; file access lives in log-file.ts).
//
//   line 1   {"$store":"header","v":1,"id":...,"cwd":...,"additionalDirectories":[...],"createdAt":...,...}
//   line n   {"$store":"meta","patch":{"title":...,"updatedAt":...}}     (updateMeta)
//   line n   {...any record of the session layer...}                      (append)
//
// "$store" is reserved at the top level of records, so the store's own lines are recognisable by
// their first bytes. JSON.stringify escapes "\n" inside strings, so a line is exactly one JSON value
// and "\n" is the only separator (U+2028/U+2029 stay raw in JSON and must not split lines).

export const STORE_KEY = "$store";
export const LOG_VERSION = 1;
export const META_MARKER = `{"${STORE_KEY}":"meta"`;

const SALVAGE_CANDIDATES = 1000;

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** ISO 8601 in toISOString() form, or undefined if `value` is not a date. */
export function isoDate(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

export function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

function stringify(value: unknown, fail: (cause: unknown) => Error): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    throw fail(cause);
  }
}

/** Serialises one session-layer record as a log line (with its "\n"). */
export function recordLine(record: StoreRecord): string {
  if (!isJsonObject(record)) throw new InvalidRecordError("a record must be a JSON object");
  if (Object.hasOwn(record, STORE_KEY))
    throw new InvalidRecordError(`the "${STORE_KEY}" key is reserved for the store`);
  const text = stringify(
    record,
    (cause) => new InvalidRecordError(`record is not serialisable: ${errorMessage(cause)}`, { cause }),
  );
  // A toJSON() returning something other than an object would make a line read() cannot accept.
  if (!text?.startsWith("{")) throw new InvalidRecordError("a record must serialise to a JSON object");
  return `${text}\n`;
}

export function headerLine(meta: SessionMeta): string {
  return `${stringify({ [STORE_KEY]: "header", v: LOG_VERSION, ...meta }, (cause) => new InvalidMetaError(`meta is not serialisable: ${errorMessage(cause)}`))}\n`;
}

export function metaLine(patch: MetaPatch): string {
  return `${stringify({ [STORE_KEY]: "meta", patch }, (cause) => new InvalidMetaError(`meta is not serialisable: ${errorMessage(cause)}`))}\n`;
}

function checkExtra(extra: unknown): MetaExtra | undefined {
  if (extra === undefined) return undefined;
  if (!isJsonObject(extra)) throw new InvalidMetaError("extra must be a JSON object");
  return extra;
}

/** Fills defaults and validates the meta of a new session. */
export function newSessionMeta(meta: NewSessionMeta, now: Date): SessionMeta {
  if (typeof meta.cwd !== "string") throw new InvalidMetaError("cwd must be a string");
  const additionalDirectories = meta.additionalDirectories ?? [];
  if (!isStringArray(additionalDirectories))
    throw new InvalidMetaError("additionalDirectories must be an array of strings");
  if (meta.title !== undefined && typeof meta.title !== "string") throw new InvalidMetaError("title must be a string");
  const createdAt = meta.createdAt === undefined ? now.toISOString() : isoDate(meta.createdAt);
  if (!createdAt) throw new InvalidMetaError(`createdAt is not a date: ${String(meta.createdAt)}`);
  const updatedAt = meta.updatedAt === undefined ? createdAt : isoDate(meta.updatedAt);
  if (!updatedAt) throw new InvalidMetaError(`updatedAt is not a date: ${String(meta.updatedAt)}`);
  const extra = checkExtra(meta.extra);
  return {
    id: meta.id,
    cwd: meta.cwd,
    additionalDirectories: [...additionalDirectories],
    ...(meta.title !== undefined ? { title: meta.title } : {}),
    createdAt,
    updatedAt,
    ...(extra ? { extra } : {}),
  };
}

/** Validates a patch from the caller; updatedAt defaults to `now`. */
export function normalizePatch(patch: MetaPatch, now: Date): MetaPatch {
  if (!isJsonObject(patch)) throw new InvalidMetaError("meta patch must be an object");
  const out: MetaPatch = {};
  if (patch.title !== undefined) {
    if (patch.title !== null && typeof patch.title !== "string")
      throw new InvalidMetaError("title must be a string or null");
    out.title = patch.title;
  }
  if (patch.cwd !== undefined) {
    if (typeof patch.cwd !== "string") throw new InvalidMetaError("cwd must be a string");
    out.cwd = patch.cwd;
  }
  if (patch.additionalDirectories !== undefined) {
    if (!isStringArray(patch.additionalDirectories))
      throw new InvalidMetaError("additionalDirectories must be an array of strings");
    out.additionalDirectories = [...patch.additionalDirectories];
  }
  const extra = checkExtra(patch.extra);
  if (extra) out.extra = extra;
  const updatedAt = patch.updatedAt === undefined ? now.toISOString() : isoDate(patch.updatedAt);
  if (!updatedAt) throw new InvalidMetaError(`updatedAt is not a date: ${String(patch.updatedAt)}`);
  out.updatedAt = updatedAt;
  return out;
}

function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  // defineProperty, not assignment: a "__proto__" key from JSON must stay an ordinary key.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Meta after one patch. Patches read back from disk are validated field by field; bad fields are ignored. */
export function applyPatch(meta: SessionMeta, patch: unknown): SessionMeta {
  if (!isJsonObject(patch)) return meta;
  const next: SessionMeta = { ...meta };
  if (patch.title === null) delete next.title;
  else if (typeof patch.title === "string") next.title = patch.title;
  if (typeof patch.cwd === "string") next.cwd = patch.cwd;
  if (isStringArray(patch.additionalDirectories)) next.additionalDirectories = patch.additionalDirectories;
  const updatedAt = isoDate(patch.updatedAt);
  if (updatedAt) next.updatedAt = updatedAt;
  if (isJsonObject(patch.extra)) {
    const extra: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(meta.extra ?? {})) setOwn(extra, key, value);
    for (const [key, value] of Object.entries(patch.extra)) {
      if (value === null) delete extra[key];
      else setOwn(extra, key, value);
    }
    if (Object.keys(extra).length > 0) next.extra = extra;
    else delete next.extra;
  }
  return next;
}

/** Meta from a parsed header line; undefined when it is not one. The file name decides the id. */
export function metaFromHeader(value: unknown, id: string): SessionMeta | undefined {
  if (!isJsonObject(value) || value[STORE_KEY] !== "header" || typeof value.cwd !== "string") return undefined;
  const createdAt = isoDate(value.createdAt) ?? new Date(0).toISOString();
  return {
    id,
    cwd: value.cwd,
    additionalDirectories: isStringArray(value.additionalDirectories) ? value.additionalDirectories : [],
    ...(typeof value.title === "string" ? { title: value.title } : {}),
    createdAt,
    updatedAt: isoDate(value.updatedAt) ?? createdAt,
    ...(isJsonObject(value.extra) ? { extra: value.extra } : {}),
  };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A line that does not parse may be a torn write (a process killed mid-write) followed by a complete
 * record another writer appended. `{"` only occurs at the start of an object (quotes inside strings
 * are escaped), and an inner object is always followed by its parent's closing bytes, so the only
 * suffix that parses is a whole top-level object; scanning from the end finds it without ever parsing
 * the torn part.
 */
export function salvageRecord(line: string): { value: Record<string, unknown>; dropped: number } | undefined {
  let at = line.lastIndexOf('{"');
  for (let tries = 0; at > 0 && tries < SALVAGE_CANDIDATES; tries += 1) {
    const value = parseObject(line.slice(at));
    if (value) return { value, dropped: at };
    at = line.lastIndexOf('{"', at - 1);
  }
  return undefined;
}

export type ParsedLog = {
  /** Header meta with every meta line applied; undefined when the header is missing or corrupted. */
  meta: SessionMeta | undefined;
  records: StoreRecord[];
  diagnostics: Diagnostic[];
};

/** Parses a whole log. Never throws: bad lines become diagnostics naming their line number. */
export function parseLog(text: string, id: string, source: string): ParsedLog {
  const diagnostics: Diagnostic[] = [];
  const records: StoreRecord[] = [];
  let meta: SessionMeta | undefined;
  const lines = text.split("\n");
  const terminated = text.endsWith("\n");
  // split() leaves "" after a final "\n"; without one, the last element is an unterminated line.
  const count = terminated ? lines.length - 1 : lines.length;
  const warn = (line: number, message: string, severity: Diagnostic["severity"] = "warning") =>
    diagnostics.push({ severity, source, message: `line ${line}: ${message}` });

  for (let index = 0; index < count; index += 1) {
    const line = lines[index]!;
    const number = index + 1;
    const last = index === count - 1 && !terminated;
    if (line.length === 0) continue;
    let value = parseObject(line);
    if (!value && last) {
      warn(
        number,
        `torn last line ignored (${line.length} characters without a newline; the process writing it probably died)`,
      );
      continue;
    }
    if (!value) {
      const salvaged = salvageRecord(line);
      if (!salvaged) {
        warn(number, "invalid JSON, line skipped");
        continue;
      }
      warn(number, `dropped ${salvaged.dropped} characters of a torn write before a complete line`);
      value = salvaged.value;
    }
    if (last) warn(number, "last line had no newline but is complete; kept", "info");
    const kind = value[STORE_KEY];
    if (kind === undefined) records.push(value);
    else if (kind === "header" && index === 0) meta = metaFromHeader(value, id);
    else if (kind === "meta" && meta) meta = applyPatch(meta, value.patch);
    else warn(number, `unexpected store line ${JSON.stringify(kind)} skipped`);
  }
  if (!meta) diagnostics.unshift({ severity: "error", source, message: "line 1: missing or corrupted session header" });
  return { meta, records, diagnostics };
}

export type MetaScan = {
  /** Present when the scan started at offset 0 and the first line is a valid header. */
  header?: SessionMeta;
  /** Meta patches in log order. */
  patches: unknown[];
  /** Offset just after the last complete line scanned. */
  end: number;
};

const MARKER_BYTES = Buffer.from(META_MARKER);

/**
 * Finds the header (when `start` is 0) and the meta lines of a log slice without parsing records:
 * a meta line is the only place the marker can occur with raw quotes at a line's top level (a nested
 * "$store" key fails to parse because its parent's closing bytes follow it).
 */
export function scanMeta(bytes: Buffer, start: number, id: string): MetaScan {
  const lastNewline = bytes.lastIndexOf(0x0a);
  const end = lastNewline < 0 ? 0 : lastNewline + 1;
  const scan: MetaScan = { patches: [], end: start + end };
  if (start === 0) {
    const firstNewline = bytes.indexOf(0x0a);
    if (firstNewline < 0) return scan;
    const header = metaFromHeader(parseObject(bytes.toString("utf8", 0, firstNewline)), id);
    if (header) scan.header = header;
  }
  let at = bytes.indexOf(MARKER_BYTES);
  while (at >= 0 && at < end) {
    const lineEnd = bytes.indexOf(0x0a, at);
    const value = parseObject(bytes.toString("utf8", at, lineEnd));
    if (value && value[STORE_KEY] === "meta") scan.patches.push(value.patch);
    at = bytes.indexOf(MARKER_BYTES, lineEnd);
  }
  return scan;
}
