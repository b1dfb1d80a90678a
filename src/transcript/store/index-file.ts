import { randomBytes } from "node:crypto";
import {
  appendFileSync,
  closeSync,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { isNotFound } from "./errors.js";
import { isJsonObject, isoDate, isStringArray } from "./log-format.js";
import type { SessionMeta } from "./types.js";

// What session-index.ts keeps on disk besides the logs:
//
// - `<dir>/index.json`: what it remembers about every log, so that a new process does not have to
//   read every log to answer its first list(). Only a cache: a missing, unreadable or unknown one is
//   ignored (and rebuilt from the logs), and every entry is checked against the log's current
//   identity before it is trusted.
// - `<dir>/index.changes`: the change feed, one session id a line, appended (O_APPEND) by every
//   store after each write that can change the listing (create, meta update, rewrite, fork, delete),
//   in any process. A list() reads what was appended since its last one and stats only those logs,
//   instead of all of them. A signal that never came (a writer killed between its write and its
//   signal, an older deep-acp that does not write the feed) is caught by the full pass that list()
//   still makes every few seconds.

export const INDEX_FILE = "index.json";
export const CHANGES_FILE = "index.changes";
/** Past this size the next full pass starts a new feed (readers of the old one make a full pass). */
const CHANGES_MAX_BYTES = 1 << 20;
const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;
export const LOG_NAME = /^([A-Za-z0-9_-]{1,128})\.jsonl$/;
export const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.tmp$/;

export type IndexEntry = {
  ino: number;
  birthtimeMs: number;
  size: number;
  mtimeMs: number;
  /** Offset just after the last complete line already scanned. */
  offset: number;
  /** Undefined while the log has no valid header (never listed). */
  meta?: SessionMeta;
};

/**
 * Read synchronously: it is one file of ~300 bytes a session, read once per process, and awaiting
 * it would queue the first list() behind whatever else the process is busy with (at startup: loading
 * the protocol layer), which made the first list of a process the slowest by far.
 */
export function readIndexFile(dir: string, logger: Logger): Map<string, IndexEntry> {
  const path = join(dir, INDEX_FILE);
  const loaded = new Map<string, IndexEntry>();
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    if (!isNotFound(error))
      logger.warn(`session index ${path} unreadable, rebuilding from the logs: ${errorMessage(error)}`);
    return loaded;
  }
  const sessions = isJsonObject(raw) && raw.v === 1 ? raw.sessions : undefined;
  if (!isJsonObject(sessions)) {
    logger.warn(`session index ${path} has an unknown shape, rebuilding from the logs`);
    return loaded;
  }
  for (const [id, value] of Object.entries(sessions)) {
    const entry = entryFrom(id, value);
    if (entry) loaded.set(id, entry);
  }
  return loaded;
}

export function serializeIndex(entries: Map<string, IndexEntry>): string {
  return JSON.stringify({ v: 1, sessions: Object.fromEntries(entries) });
}

/** Temp file + rename, no fsync: losing the index only costs a rescan. Never throws. */
export function writeIndexFile(dir: string, text: string, logger: Logger): void {
  const path = join(dir, INDEX_FILE);
  const temp = join(dir, `.${INDEX_FILE}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    writeFileSync(temp, text, { mode: 0o600, flag: "wx" });
    renameSync(temp, path);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // Nothing more to do: a leftover temp file is removed by a later list() once it is old.
    }
    logger.warn(`cannot write session index ${path}: ${errorMessage(error)}`);
  }
}

const finite = (n: unknown): n is number => typeof n === "number" && Number.isFinite(n);

function entryFrom(id: string, value: unknown): IndexEntry | undefined {
  if (!SESSION_ID.test(id) || !isJsonObject(value)) return undefined;
  const { ino, birthtimeMs, size, mtimeMs, offset } = value;
  if (!finite(ino) || !finite(birthtimeMs) || !finite(size) || !finite(mtimeMs) || !finite(offset)) return undefined;
  const entry: IndexEntry = { ino, birthtimeMs, size, mtimeMs, offset };
  if (value.meta === undefined) return entry;
  const meta = metaFromIndex(value.meta, id);
  if (!meta) return undefined;
  entry.meta = meta;
  return entry;
}

/**
 * The meta metaFromHeader (log-format.ts) would make of the same fields, without its copies: this runs
 * for every session when a process lists for the first time (it took ~10 ms for 1,000 sessions, as
 * long as the 1,000 stats). Dates the index holds are already in toISOString() form, which a regex
 * recognises; anything else is normalised the slow way.
 */
function metaFromIndex(value: unknown, id: string): SessionMeta | undefined {
  if (!isJsonObject(value) || typeof value.cwd !== "string") return undefined;
  const createdAt = storedDate(value.createdAt) ?? new Date(0).toISOString();
  const meta: SessionMeta = {
    id,
    cwd: value.cwd,
    additionalDirectories: isStringArray(value.additionalDirectories) ? value.additionalDirectories : [],
    createdAt,
    updatedAt: storedDate(value.updatedAt) ?? createdAt,
  };
  if (typeof value.title === "string") meta.title = value.title;
  if (isJsonObject(value.extra)) meta.extra = value.extra;
  return meta;
}

const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

function storedDate(value: unknown): string | undefined {
  return typeof value === "string" && ISO_DATE.test(value) && Number.isFinite(Date.parse(value))
    ? value
    : isoDate(value);
}

/** Where a reader is in the change feed; ino 0 when there was no feed. */
export type FeedPosition = { ino: number; offset: number };

/** Signals a change of `id` to every process listing this dir. Never throws: see the header. */
export function signalChange(dir: string, id: string): void {
  try {
    appendFileSync(join(dir, CHANGES_FILE), `${id}\n`, { mode: 0o600 });
  } catch {
    // The dir is gone (nothing left to list) or unwritable: the full passes still see everything.
  }
}

/** The end of the feed, where a full pass starts following it; a large feed is replaced by an empty one. */
export function feedEnd(dir: string): FeedPosition {
  const path = join(dir, CHANGES_FILE);
  try {
    let fd = openSync(path, "r");
    try {
      const { ino, size } = fstatSync(fd);
      if (size <= CHANGES_MAX_BYTES) return { ino, offset: size };
    } finally {
      closeSync(fd);
    }
    const temp = join(dir, `.${CHANGES_FILE}.${randomBytes(6).toString("hex")}.tmp`);
    writeFileSync(temp, "", { mode: 0o600, flag: "wx" });
    renameSync(temp, path);
    fd = openSync(path, "r");
    try {
      return { ino: fstatSync(fd).ino, offset: 0 };
    } finally {
      closeSync(fd);
    }
  } catch {
    return { ino: 0, offset: 0 };
  }
}

/**
 * Session ids signalled since `from`, and the new position; undefined when the feed cannot be
 * followed from there (created, replaced or truncated since), which calls for a full pass.
 */
export function readFeed(dir: string, from: FeedPosition): { ids: Set<string>; at: FeedPosition } | undefined {
  let fd: number;
  try {
    fd = openSync(join(dir, CHANGES_FILE), "r");
  } catch (error) {
    return isNotFound(error) && from.ino === 0 ? { ids: new Set(), at: from } : undefined;
  }
  try {
    const { ino, size } = fstatSync(fd);
    if (ino !== from.ino || size < from.offset) return undefined;
    const bytes = Buffer.alloc(size - from.offset);
    let filled = 0;
    while (filled < bytes.length) {
      const read = readSync(fd, bytes, filled, bytes.length - filled, from.offset + filled);
      if (read === 0) break;
      filled += read;
    }
    // Only complete lines: a signal being written is read whole next time.
    const end = bytes.subarray(0, filled).lastIndexOf(0x0a) + 1;
    const ids = new Set<string>();
    for (const line of bytes.toString("utf8", 0, end).split("\n")) if (SESSION_ID.test(line)) ids.add(line);
    return { ids, at: { ino, offset: from.offset + end } };
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}
