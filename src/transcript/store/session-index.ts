import { statSync, type Stats } from "node:fs";
import { open, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { createMutex } from "../../util/mutex.js";
import { isNotFound } from "./errors.js";
import { applyPatch, isJsonObject, metaFromHeader, scanMeta, STORE_KEY } from "./log-format.js";
import type { SessionMeta } from "./types.js";

// `<dir>/index.json` is a derived cache, never the source of truth: for every log it remembers the
// meta folded from the log's header and meta lines, plus the file identity it was read from (inode,
// birth time, size, mtime) and the offset just past the last complete line it scanned.
//
// list() stats every log and re-reads only what changed: an unchanged file costs one stat, a grown
// file is scanned from the remembered offset for new meta lines (records are skipped without being
// parsed), a replaced or shrunk file (rewrite) is scanned whole. So a missing, stale or corrupted
// index, or one overwritten by another deep-acp process, only costs a rescan, and no update can be
// lost between processes: updates are appended to the session logs with O_APPEND, which the kernel
// orders. Each process keeps its own copy in memory and rewrites the file (temp + rename, no fsync:
// losing it only costs a rescan) after a list() that found changes; the last writer wins, harmlessly.
//
// Stats are synchronous on purpose: 1,000 async stats through libuv's 4-thread pool take 15-35 ms
// on a small machine against ~5 ms for statSync, and list() must stay well under 50 ms.

export const INDEX_FILE = "index.json";
const LOG_NAME = /^([A-Za-z0-9_-]{1,128})\.jsonl$/;
const SCAN_CONCURRENCY = 16;
const TEMP_NAME = /^\..+\.[0-9a-f]{12}\.tmp$/;
/**
 * At most one index write per this interval; later ones are deferred. Under load (sessions
 * streaming into their logs) every list() finds changes, and rewriting a 1,000-entry index each
 * time is what made list() slow; a deferred or lost write only costs a rescan.
 */
const SAVE_INTERVAL_MS = 2000;
/** A temp file this old belongs to a replacement whose process died (they live for milliseconds). */
const ABANDONED_TEMP_MS = 10 * 60_000;

type Entry = {
  ino: number;
  birthtimeMs: number;
  size: number;
  mtimeMs: number;
  /** Offset just after the last complete line already scanned. */
  offset: number;
  /** Undefined while the log has no valid header (never listed). */
  meta?: SessionMeta;
};

export type SessionIndexOptions = {
  dir: string;
  logger: Logger;
};

export interface SessionIndex {
  /** Meta of every session with a valid header, as of this call (unordered, shared objects: do not mutate). */
  all(): Promise<SessionMeta[]>;
}

export function createSessionIndex(options: SessionIndexOptions): SessionIndex {
  const { dir, logger } = options;
  const path = join(dir, INDEX_FILE);
  const exclusive = createMutex();
  let entries: Map<string, Entry> | undefined;
  let lastSave = 0;
  let saveTimer: NodeJS.Timeout | undefined;

  async function saveSoon(current: Map<string, Entry>): Promise<void> {
    if (saveTimer) return;
    if (Date.now() - lastSave >= SAVE_INTERVAL_MS) {
      lastSave = Date.now();
      return save(current);
    }
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      lastSave = Date.now();
      void exclusive(() => save(current));
    }, SAVE_INTERVAL_MS);
    saveTimer.unref();
  }

  async function load(): Promise<Map<string, Entry>> {
    const loaded = new Map<string, Entry>();
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(path, "utf8"));
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

  async function scan(id: string, file: string, stats: Stats, previous: Entry | undefined): Promise<Entry | undefined> {
    const sameFile = previous?.meta && previous.ino === stats.ino && previous.birthtimeMs === stats.birthtimeMs;
    const incremental = sameFile && stats.size >= previous.offset;
    const start = incremental ? previous.offset : 0;
    const bytes = await readRange(file, start, stats.size);
    if (!bytes) return undefined;
    const found = scanMeta(bytes, start, id);
    let meta = incremental ? previous.meta : found.header;
    if (!meta && found.end > 0) logger.warn(`session log ${file} has a missing or corrupted header; not listed`);
    for (const patch of found.patches) if (meta) meta = applyPatch(meta, patch);
    return {
      ino: stats.ino,
      birthtimeMs: stats.birthtimeMs,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      offset: found.end,
      ...(meta ? { meta } : {}),
    };
  }

  async function save(current: Map<string, Entry>): Promise<void> {
    const temp = join(dir, `.${INDEX_FILE}.${randomBytes(6).toString("hex")}.tmp`);
    try {
      await writeFile(temp, JSON.stringify({ v: 1, sessions: Object.fromEntries(current) }), {
        mode: 0o600,
        flag: "wx",
      });
      await rename(temp, path);
    } catch (error) {
      await rm(temp, { force: true });
      logger.warn(`cannot write session index ${path}: ${errorMessage(error)}`);
    }
  }

  return {
    all: () =>
      exclusive(async () => {
        const current = (entries ??= await load());
        let names: string[];
        try {
          names = await readdir(dir);
        } catch (error) {
          if (isNotFound(error)) return [];
          throw error;
        }
        let changed = false;
        const seen = new Set<string>();
        const stale: Array<{ id: string; file: string; stats: Stats }> = [];
        const cleanups: Promise<void>[] = [];
        for (const name of names) {
          const id = LOG_NAME.exec(name)?.[1];
          if (!id) {
            if (TEMP_NAME.test(name)) cleanups.push(removeIfAbandoned(join(dir, name)));
            continue;
          }
          const file = join(dir, name);
          const stats = statSync(file, { throwIfNoEntry: false });
          if (!stats) continue;
          seen.add(id);
          const entry = current.get(id);
          const unchanged =
            entry &&
            entry.ino === stats.ino &&
            entry.birthtimeMs === stats.birthtimeMs &&
            entry.size === stats.size &&
            entry.mtimeMs === stats.mtimeMs;
          if (!unchanged) stale.push({ id, file, stats });
        }
        await forEachLimited(stale, SCAN_CONCURRENCY, async ({ id, file, stats }) => {
          let entry: Entry | undefined;
          try {
            entry = await scan(id, file, stats, current.get(id));
          } catch (error) {
            // One unreadable log must not break list(): keep what we knew and try again next time.
            logger.warn(`cannot scan session log ${file}: ${errorMessage(error)}`);
            return;
          }
          if (entry) current.set(id, entry);
          else current.delete(id);
          changed = true;
        });
        for (const id of current.keys()) {
          if (seen.has(id)) continue;
          current.delete(id);
          changed = true;
        }
        if (changed) await saveSoon(current);
        await Promise.all(cleanups);
        const metas: SessionMeta[] = [];
        for (const entry of current.values()) if (entry.meta) metas.push(entry.meta);
        return metas;
      }),
  };
}

async function removeIfAbandoned(file: string): Promise<void> {
  // Real time, not the injected clock: it is compared with the file system's mtime.
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats && Date.now() - stats.mtimeMs > ABANDONED_TEMP_MS) await rm(file, { force: true }).catch(() => undefined);
}

function entryFrom(id: string, value: unknown): Entry | undefined {
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

/** Bytes [start, end) of a file; undefined if it vanished. Fewer bytes if it shrank meanwhile. */
async function readRange(file: string, start: number, end: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(file, "r");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(Math.max(0, end - start));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, start + filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

async function forEachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
