import { closeSync, openSync, readdirSync, readSync, statSync, type Stats } from "node:fs";
import { open, rm } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage } from "../../util/errors.js";
import type { Logger } from "../../util/logger.js";
import { createMutex } from "../../util/mutex.js";
import { sortSessions } from "./cursor.js";
import { isNotFound } from "./errors.js";
import {
  feedEnd,
  INDEX_FILE,
  LOG_NAME,
  readFeed,
  readIndexFile,
  serializeIndex,
  TEMP_NAME,
  writeIndexFile,
  type FeedPosition,
  type IndexEntry,
} from "./index-file.js";
import { applyPatch, scanMeta } from "./log-format.js";
import type { SessionMeta } from "./types.js";

export { INDEX_FILE };

// The session index is a derived cache, never the source of truth: for every log it remembers the
// meta folded from the log's header and meta lines, plus the file identity it was read from (inode,
// birth time, size, mtime) and the offset just past the last complete line it scanned. The process
// keeps it in memory, with the sessions already sorted for list(); index.json (index-file.ts) only
// spares a new process from reading every log.
//
// A full pass stats every log and re-reads only what changed: an unchanged file costs one stat, a
// grown file is scanned from the remembered offset for new meta lines (records are skipped without
// being parsed), a replaced or shrunk file (rewrite) is scanned whole. So a missing, stale or
// corrupted index, or one overwritten by another deep-acp process, only costs a rescan. The first
// list() of a process makes a full pass, and then one at least every FULL_PASS_MS; in between,
// list() stats only the sessions signalled in the change feed (index-file.ts) since its last call,
// by this process or any other. 1,000 stats are ~4 ms of CPU on an idle machine but took 100-230 ms
// while ten turns streamed on two busy cores, which was the slow tail of session/list under load.
//
// The common list() is one synchronous pass: each await would let it queue behind the streaming work
// of every running turn. Only a scan of more than SYNC_SCAN_BYTES (a new process without an index,
// many rewritten logs) goes through async reads, so it cannot freeze the process. The index file is
// rewritten at most every SAVE_INTERVAL_MS (see saveSoon); flush() writes a pending update now.

const SCAN_CONCURRENCY = 16;
const SYNC_SCAN_BYTES = 1 << 20;
/**
 * At most one index write per this interval. Under load (sessions streaming into their logs)
 * every list() finds changes, and rewriting a 1,000-entry index each time is wasted work.
 */
const SAVE_INTERVAL_MS = 2000;
/**
 * Between two full passes list() trusts the change feed (index-file.ts). A change that was never
 * signalled (an older deep-acp writing the same dir, a writer killed between its write and its
 * signal) shows up in lists at most this much later.
 */
const FULL_PASS_MS = 10_000;
/** A temp file this old belongs to a replacement whose process died (they live for milliseconds). */
const ABANDONED_TEMP_MS = 10 * 60_000;

export type SessionIndexOptions = {
  dir: string;
  logger: Logger;
  /** Default FULL_PASS_MS. */
  fullPassMs?: number;
};

export interface SessionIndex {
  /** Every session with a valid header, newest first, as of this call (shared: do not mutate). */
  sorted(): Promise<SessionMeta[]>;
  /** Writes a pending index update now (the index is otherwise written in the background). */
  flush(): Promise<void>;
}

/** A log to (re)scan from `start`: the remembered offset when it only grew, else 0. */
type Stale = { id: string; file: string; stats: Stats; start: number };

export function createSessionIndex(options: SessionIndexOptions): SessionIndex {
  const { dir, logger } = options;
  const fullPassMs = options.fullPassMs ?? FULL_PASS_MS;
  const exclusive = createMutex();
  let entries: Map<string, IndexEntry> | undefined;
  let sorted: SessionMeta[] | undefined;
  let dirty = false;
  let lastSave = 0;
  let saveTimer: NodeJS.Timeout | undefined;
  let feed: FeedPosition | undefined;
  let lastFullPass = 0;

  /**
   * Writes the index when it changed, at most once per SAVE_INTERVAL_MS: now if the last write is
   * old enough, else from a timer. Synchronous (a few ms for 1,000 sessions): an awaited write queued
   * behind the streaming turns took hundreds of ms, and one left running in the background would
   * still be writing after list() returned.
   */
  function saveSoon(): void {
    dirty = true;
    if (saveTimer) return;
    const wait = lastSave + SAVE_INTERVAL_MS - Date.now();
    if (wait <= 0) return saveNow();
    saveTimer = setTimeout(() => {
      saveTimer = undefined;
      saveNow();
    }, wait);
    saveTimer.unref();
  }

  function saveNow(): void {
    if (!dirty || !entries) return;
    dirty = false;
    lastSave = Date.now();
    writeIndexFile(dir, serializeIndex(entries), logger);
  }

  /** The new entry for a stale log, from its bytes [start, size); undefined if it has no header. */
  function fold(stale: Stale, bytes: Buffer, previous: IndexEntry | undefined): IndexEntry {
    const { id, file, stats, start } = stale;
    const found = scanMeta(bytes, start, id);
    let meta = start > 0 ? previous?.meta : found.header;
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

  /**
   * Brings `current` up to date with the logs: all of them (a full pass), or only the sessions in
   * `only` (signalled in the change feed). Returns whether anything changed.
   */
  async function refresh(current: Map<string, IndexEntry>, only?: Set<string>): Promise<boolean> {
    let changed = false;
    let bytes = 0;
    const stale: Stale[] = [];
    const cleanups: Promise<void>[] = [];
    const check = (id: string, file: string) => {
      const stats = statSync(file, { throwIfNoEntry: false });
      if (!stats) {
        changed = current.delete(id) || changed;
        return;
      }
      const entry = current.get(id);
      if (
        entry &&
        entry.ino === stats.ino &&
        entry.birthtimeMs === stats.birthtimeMs &&
        entry.size === stats.size &&
        entry.mtimeMs === stats.mtimeMs
      )
        return;
      const sameFile = entry?.meta && entry.ino === stats.ino && entry.birthtimeMs === stats.birthtimeMs;
      const start = sameFile && stats.size >= entry.offset ? entry.offset : 0;
      stale.push({ id, file, stats, start });
      bytes += stats.size - start;
    };
    if (only) {
      for (const id of only) check(id, join(dir, `${id}.jsonl`));
    } else {
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch (error) {
        if (!isNotFound(error)) throw error;
        names = [];
      }
      const seen = new Set<string>();
      for (const name of names) {
        const id = LOG_NAME.exec(name)?.[1];
        if (id) {
          seen.add(id);
          check(id, join(dir, name));
        } else if (TEMP_NAME.test(name)) cleanups.push(removeIfAbandoned(join(dir, name)));
      }
      for (const id of current.keys()) if (!seen.has(id)) changed = current.delete(id) || changed;
    }
    const apply = async (item: Stale, read: typeof readRangeSync | typeof readRange) => {
      try {
        const data = await read(item.file, item.start, item.stats.size);
        if (data) current.set(item.id, fold(item, data, current.get(item.id)));
        else current.delete(item.id);
        changed = true;
      } catch (error) {
        // One unreadable log must not break list(): keep what we knew and try again next time.
        logger.warn(`cannot scan session log ${item.file}: ${errorMessage(error)}`);
      }
    };
    // Awaiting a value that is not a promise costs a microtask, not a turn of the event loop.
    if (bytes <= SYNC_SCAN_BYTES) for (const item of stale) await apply(item, readRangeSync);
    else await forEachLimited(stale, SCAN_CONCURRENCY, (item) => apply(item, readRange));
    if (cleanups.length > 0) await Promise.all(cleanups);
    return changed;
  }

  return {
    sorted: () =>
      exclusive(async () => {
        const current = (entries ??= readIndexFile(dir, logger));
        const now = Date.now();
        const signalled = feed && now - lastFullPass < fullPassMs ? readFeed(dir, feed) : undefined;
        let changed: boolean;
        if (signalled) {
          feed = signalled.at;
          changed = await refresh(current, signalled.ids);
        } else {
          // The feed position first: a change signalled from here on is read by the next list().
          feed = feedEnd(dir);
          lastFullPass = now;
          changed = await refresh(current);
        }
        if (changed) {
          sorted = undefined;
          saveSoon();
        }
        if (!sorted) {
          const metas: SessionMeta[] = [];
          for (const entry of current.values()) if (entry.meta) metas.push(entry.meta);
          sorted = sortSessions(metas);
        }
        return sorted;
      }),

    flush: () =>
      exclusive(async () => {
        if (saveTimer) clearTimeout(saveTimer);
        saveTimer = undefined;
        saveNow();
      }),
  };
}

async function removeIfAbandoned(file: string): Promise<void> {
  // Real time, not the injected clock: it is compared with the file system's mtime.
  const stats = statSync(file, { throwIfNoEntry: false });
  if (stats && Date.now() - stats.mtimeMs > ABANDONED_TEMP_MS) await rm(file, { force: true }).catch(() => undefined);
}

/** Bytes [start, end) of a file; undefined if it vanished. Fewer bytes if it shrank meanwhile. */
function readRangeSync(file: string, start: number, end: number): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(file, "r");
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  try {
    const buffer = Buffer.alloc(Math.max(0, end - start));
    let filled = 0;
    while (filled < buffer.length) {
      const read = readSync(fd, buffer, filled, buffer.length - filled, start + filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/** readRangeSync through the thread pool, for large scans. */
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
