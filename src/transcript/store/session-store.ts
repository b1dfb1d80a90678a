import { access, rm } from "node:fs/promises";
import { resolve } from "node:path";
import { ensurePrivateDir } from "../../util/atomic-file.js";
import { errorMessage } from "../../util/errors.js";
import { silentLogger } from "../../util/logger.js";
import {
  attachmentsDir,
  checkAttachmentName,
  copyAttachmentFiles,
  listAttachmentFiles,
  readAttachmentFile,
  removeAttachmentFile,
  removeAttachmentFiles,
  writeAttachmentFile,
} from "./attachments.js";
import { decodeCursor, pageSize, paginate } from "./cursor.js";
import {
  InvalidRecordError,
  InvalidSessionIdError,
  SessionExistsError,
  SessionNotFoundError,
  isNotFound,
} from "./errors.js";
import { headerLine, metaLine, newSessionMeta, normalizePatch, parseLog, recordLine } from "./log-format.js";
import { appendToLog, appendToLogSync, createLog, logPath, publishNewLog, readLog, replaceLog } from "./log-file.js";
import { signalChange } from "./index-file.js";
import { createSessionIndex } from "./session-index.js";
import type { ReadResult, SessionMeta, SessionStore, SessionStoreOptions, StoreRecord } from "./types.js";

// Durable, append-only storage of conversations. The store does not know what records mean; the
// session layer decides. On disk (dir 0700, files 0600: they hold the user's code and conversations):
//
//   <dir>/<id>.jsonl        the session log: header line, then records and meta lines (log-format.ts)
//   <dir>/<id>.files/<name> attachments of the session (StateBackend snapshot, rewind backups)
//   <dir>/index.json        derived cache that keeps list() fast (session-index.ts)
//   <dir>/index.changes     ids of sessions whose listing changed, for other processes' list()
//   <dir>/.*.<hex>.tmp      temp files of atomic replacements; list() removes ones a crash abandoned
//
// The log alone is the truth. Records and meta updates are appended with O_APPEND, one write per
// line, so a process killed at any moment loses at most the line being written, and two processes
// (two editor windows) appending to the same dir never overwrite each other. Readers skip a torn
// last line and report corrupted lines instead of failing. Whole-log replacements (rewrite, fork)
// go through a temp file, so they are all-or-nothing; they assume that no other process appends to
// that session at the same moment (an ACP session is live in one agent process at a time).
//
// Within this process every mutation of a session runs through a per-session queue: calls that are
// not awaited still reach the file in call order, and read()/list() first wait for what is queued.

const SESSION_ID = /^[A-Za-z0-9_-]{1,128}$/;

export function createSessionStore(options: SessionStoreOptions): SessionStore {
  const dir = resolve(options.dir);
  const clock = options.clock ?? (() => new Date());
  const logger = options.logger ?? silentLogger;
  const index = createSessionIndex({
    dir,
    logger,
    ...(options.fullPassMs !== undefined && { fullPassMs: options.fullPassMs }),
  });
  const tails = new Map<string, Promise<void>>();
  let dirReady: Promise<void> | undefined;

  const ensureDir = () =>
    (dirReady ??= ensurePrivateDir(dir).catch((error: unknown) => {
      dirReady = undefined;
      throw error;
    }));

  /** Runs `task` after every operation queued earlier for `id`, whatever their outcome. */
  function enqueue<T>(id: string, task: () => Promise<T>): Promise<T> {
    const run = (tails.get(id) ?? Promise.resolve()).then(task);
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    tails.set(id, tail);
    void tail.then(() => {
      if (tails.get(id) === tail) tails.delete(id);
    });
    return run;
  }

  /** Callers may fire and forget appends; a failure is then logged rather than an unhandled rejection. */
  function reported<T>(what: string, id: string, promise: Promise<T>): Promise<T> {
    promise.catch((error: unknown) => logger.warn(`session store: ${what} ${id} failed: ${errorMessage(error)}`));
    return promise;
  }

  /**
   * Appends a serialised line to `id`'s log: at once when nothing is queued for it (the line is on
   * disk when this returns), else after what is queued. `written` runs after the write, failed or not.
   */
  function appendLine(what: string, id: string, line: string, written?: () => void): Promise<void> {
    if (!tails.has(id)) {
      try {
        appendToLogSync(path(id), id, line);
        return Promise.resolve();
      } catch (error) {
        return reported(what, id, Promise.reject(error));
      } finally {
        written?.();
      }
    }
    return reported(
      what,
      id,
      enqueue(id, () => appendToLog(path(id), id, line).finally(() => written?.())),
    );
  }

  async function waitFor(id?: string): Promise<void> {
    if (id !== undefined) await tails.get(id);
    else await Promise.all(tails.values());
  }

  const path = (id: string) => logPath(dir, id);

  async function readParsed(id: string) {
    const parsed = parseLog(await readLog(path(id), id), id, path(id));
    // A log whose header was destroyed still gives its records back (with an error diagnostic).
    const epoch = new Date(0).toISOString();
    const meta: SessionMeta = parsed.meta ?? {
      id,
      cwd: "",
      additionalDirectories: [],
      createdAt: epoch,
      updatedAt: epoch,
    };
    return { ...parsed, meta };
  }

  async function requireLog(id: string): Promise<void> {
    try {
      await access(path(id));
    } catch (error) {
      if (isNotFound(error)) throw new SessionNotFoundError(id);
      throw error;
    }
  }

  return {
    dir,

    async create(meta) {
      checkId(meta?.id);
      const full = newSessionMeta(meta, clock());
      const text = headerLine(full);
      return enqueue(full.id, async () => {
        await ensureDir();
        await createLog(path(full.id), full.id, text);
        signalChange(dir, full.id);
        return cloneMeta(full);
      });
    },

    append(id, record) {
      let line: string;
      try {
        checkId(id);
        // Serialised now: the caller may reuse or mutate the object before the write happens.
        line = recordLine(record);
      } catch (error) {
        return reported("append to", String(id), Promise.reject(error));
      }
      // With nothing queued for this session the line is written before append returns, so once an
      // event has reached the editor it is also in the log (a SIGKILL right after cannot lose it).
      return appendLine("append to", id, line);
    },

    async flush(id) {
      await waitFor(id);
      if (id === undefined) await index.flush();
    },

    async read(id): Promise<ReadResult> {
      checkId(id);
      await waitFor(id);
      const { meta, records, diagnostics } = await readParsed(id);
      return { meta, records, diagnostics };
    },

    updateMeta(id, patch) {
      let line: string;
      try {
        checkId(id);
        line = metaLine(normalizePatch(patch, clock()));
      } catch (error) {
        return reported("update of", String(id), Promise.reject(error));
      }
      // As for append: with nothing queued the line is written before updateMeta returns. Every turn
      // ends with one, and the answer to the prompt waits for it (an awaited append took ~2.5 ms).
      return appendLine("update of", id, line, () => signalChange(dir, id));
    },

    async list(listOptions = {}) {
      const after = listOptions.cursor == null ? undefined : decodeCursor(listOptions.cursor);
      const limit = pageSize(listOptions.limit);
      await waitFor();
      const sorted = await index.sorted();
      const { cwd, where } = listOptions;
      const wanted =
        cwd == null && !where ? sorted : sorted.filter((m) => (cwd == null || m.cwd === cwd) && (!where || where(m)));
      const page = paginate(wanted, after, limit);
      return { ...page, sessions: page.sessions.map(cloneMeta) };
    },

    async delete(id) {
      checkId(id);
      await enqueue(id, async () => {
        // Attachments first: an interrupted delete leaves a listed session to delete again, never
        // orphaned files that a later session with the same id would inherit.
        await removeAttachmentFiles(attachmentsDir(dir, id));
        await removeLog(path(id));
        signalChange(dir, id);
      });
    },

    async rewrite(id, records) {
      checkId(id);
      const lines = serializeRecords(records);
      await enqueue(id, async () => {
        const { meta } = await readParsed(id);
        await replaceLog(path(id), headerLine(meta) + lines);
        signalChange(dir, id);
      });
    },

    async fork(sourceId, meta, forkOptions = {}) {
      checkId(sourceId);
      checkId(meta?.id);
      const upto = forkOptions.uptoRecordCount;
      if (upto !== undefined && !(Number.isInteger(upto) && upto >= 0)) {
        throw new InvalidRecordError(`uptoRecordCount must be a non-negative integer, got ${String(upto)}`);
      }
      if (meta.id === sourceId) throw new SessionExistsError(meta.id);
      // Everything runs in the source's queue, so the copy includes every append queued before it.
      return enqueue(sourceId, async () => {
        const source = await readParsed(sourceId);
        const full = newSessionMeta(
          {
            ...meta,
            additionalDirectories: meta.additionalDirectories ?? source.meta.additionalDirectories,
            title: meta.title ?? source.meta.title,
            extra: meta.extra ?? source.meta.extra,
          },
          clock(),
        );
        const text = headerLine(full) + serializeRecords(source.records.slice(0, upto));
        if (await exists(path(full.id))) throw new SessionExistsError(full.id);
        if (forkOptions.copyAttachments ?? true)
          await copyAttachmentFiles(attachmentsDir(dir, sourceId), attachmentsDir(dir, full.id));
        await publishNewLog(path(full.id), full.id, text);
        signalChange(dir, full.id);
        return cloneMeta(full);
      });
    },

    async writeAttachment(id, name, data) {
      checkId(id);
      checkAttachmentName(name);
      const copy = typeof data === "string" ? data : Uint8Array.from(data);
      await enqueue(id, async () => {
        await requireLog(id);
        await writeAttachmentFile(attachmentsDir(dir, id), name, copy);
      });
    },

    async readAttachment(id, name) {
      checkId(id);
      checkAttachmentName(name);
      await waitFor(id);
      return readAttachmentFile(attachmentsDir(dir, id), name);
    },

    async listAttachments(id) {
      checkId(id);
      await waitFor(id);
      return listAttachmentFiles(attachmentsDir(dir, id));
    },

    async deleteAttachment(id, name) {
      checkId(id);
      checkAttachmentName(name);
      await enqueue(id, () => removeAttachmentFile(attachmentsDir(dir, id), name));
    },
  };
}

function checkId(id: unknown): asserts id is string {
  if (typeof id !== "string" || !SESSION_ID.test(id)) throw new InvalidSessionIdError(String(id));
}

export function isValidSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

function serializeRecords(records: StoreRecord[]): string {
  if (!Array.isArray(records)) throw new InvalidRecordError("records must be an array");
  return records.map(recordLine).join("");
}

function cloneMeta(meta: SessionMeta): SessionMeta {
  return {
    ...meta,
    additionalDirectories: [...meta.additionalDirectories],
    ...(meta.extra ? { extra: structuredClone(meta.extra) } : {}),
  };
}

async function exists(file: string): Promise<boolean> {
  try {
    await access(file);
    return true;
  } catch (error) {
    if (isNotFound(error)) return false;
    throw error;
  }
}

async function removeLog(file: string): Promise<void> {
  await rm(file, { force: true });
}
