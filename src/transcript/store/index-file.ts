import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { isNotFound } from "./errors.js";
import { isJsonObject, metaFromHeader, STORE_KEY } from "./log-format.js";
import type { SessionMeta } from "./types.js";

// `<dir>/index.json` on disk: what session-index.ts remembers about every log, so that a new process
// does not have to read every log to answer its first list(). Only a cache: a missing, unreadable or
// unknown one is ignored (and rebuilt from the logs), and every entry is checked against the log's
// current identity before it is trusted.

export const INDEX_FILE = "index.json";
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

function entryFrom(id: string, value: unknown): IndexEntry | undefined {
  if (!LOG_NAME.test(`${id}.jsonl`) || !isJsonObject(value)) return undefined;
  const { ino, birthtimeMs, size, mtimeMs, offset } = value;
  const numbers = [ino, birthtimeMs, size, mtimeMs, offset];
  if (!numbers.every((n) => typeof n === "number" && Number.isFinite(n))) return undefined;
  const meta =
    value.meta === undefined
      ? undefined
      : metaFromHeader(isJsonObject(value.meta) ? { ...value.meta, [STORE_KEY]: "header" } : undefined, id);
  if (value.meta !== undefined && !meta) return undefined;
  return {
    ino: ino as number,
    birthtimeMs: birthtimeMs as number,
    size: size as number,
    mtimeMs: mtimeMs as number,
    offset: offset as number,
    ...(meta ? { meta } : {}),
  };
}
