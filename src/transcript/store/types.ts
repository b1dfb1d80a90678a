import type { Diagnostic } from "../../util/diagnostics.js";
import type { Logger } from "../../util/logger.js";

/** One line of a session log as the session layer wrote it: any JSON object without a "$store" key. */
export type StoreRecord = Record<string, unknown>;

/** JSON object of session-layer fields kept with the meta (mode, model, ...). Shallow-merged by updateMeta. */
export type MetaExtra = Record<string, unknown>;

/** What list() returns per session and read() returns as `meta`. Timestamps are ISO 8601. */
export type SessionMeta = {
  id: string;
  cwd: string;
  additionalDirectories: string[];
  title?: string;
  createdAt: string;
  updatedAt: string;
  extra?: MetaExtra;
};

export type NewSessionMeta = {
  /** Must match ^[A-Za-z0-9_-]{1,128}$ (it becomes a file name). */
  id: string;
  cwd: string;
  /** Default []. */
  additionalDirectories?: string[];
  title?: string;
  /** Default: the store clock. */
  createdAt?: string;
  /** Default: createdAt. */
  updatedAt?: string;
  extra?: MetaExtra;
};

export type MetaPatch = {
  /** A string sets the title, null removes it. */
  title?: string | null;
  /** Default: the store clock, so every updateMeta moves the session to the top of list(). */
  updatedAt?: string;
  cwd?: string;
  additionalDirectories?: string[];
  /** Shallow-merged into the current extra; a key set to null is removed. */
  extra?: MetaExtra;
};

export type ReadResult = {
  /**
   * Header folded with every meta line. If the header itself is destroyed, a placeholder
   * (cwd "", timestamps at the epoch) and an error diagnostic for line 1.
   */
  meta: SessionMeta;
  /** Records in append order, without the store's own header and meta lines. */
  records: StoreRecord[];
  /** Torn or corrupted lines that were skipped (never fatal). */
  diagnostics: Diagnostic[];
};

export type ListOptions = {
  /** Only sessions whose cwd is exactly this path. */
  cwd?: string;
  /** Only sessions this accepts (applied before pagination, like cwd). */
  where?: (meta: SessionMeta) => boolean;
  /** nextCursor of the previous page. */
  cursor?: string;
  /** Page size, 1..1000; default 50. */
  limit?: number;
};

export type ListPage = {
  /** Newest updatedAt first, ties by id ascending. */
  sessions: SessionMeta[];
  /** Present when more sessions follow. */
  nextCursor?: string;
};

export type ForkOptions = {
  /** Copy only the first N records; default all. */
  uptoRecordCount?: number;
  /** Copy the source's attachments; default true (the state files belong to the conversation). */
  copyAttachments?: boolean;
};

export type SessionStoreOptions = {
  /** Directory of the logs, e.g. userPaths().sessionsDir (~/.deepagents/sessions); created 0700. */
  dir: string;
  /** Default () => new Date(). */
  clock?: () => Date;
  /** Default silentLogger. Failed unawaited appends and skipped index entries are reported here. */
  logger?: Logger;
  /**
   * list() stats every log at least this often (default 10 000 ms); in between it trusts the change
   * feed, so a change another process made without signalling it shows up this much later at most.
   */
  fullPassMs?: number;
};

export interface SessionStore {
  readonly dir: string;
  /** Creates `<id>.jsonl` whose first line is the header; SessionExistsError if the id is taken. */
  create(meta: NewSessionMeta): Promise<SessionMeta>;
  /**
   * Appends one record as one line with a single write. Appends to one session are written in call
   * order even when not awaited; the promise settles once the line is in the file.
   */
  append(id: string, record: StoreRecord): Promise<void>;
  /**
   * Resolves when every append/update queued so far (for `id`, or for all sessions) has settled;
   * without `id` it also writes a pending update of index.json, which list() writes in the background.
   */
  flush(id?: string): Promise<void>;
  /** SessionNotFoundError if there is no log; corrupted content only produces diagnostics. */
  read(id: string): Promise<ReadResult>;
  /**
   * Appends a meta line to the log (the log is the source of truth; list() and read() fold it in).
   * Queued like append(), so it may be fired and forgotten.
   */
  updateMeta(id: string, patch: MetaPatch): Promise<void>;
  list(options?: ListOptions): Promise<ListPage>;
  /** Removes the log, its attachments and its index entry; deleting a missing session succeeds. */
  delete(id: string): Promise<void>;
  /** Atomically replaces every record (the header keeps the current meta). */
  rewrite(id: string, records: StoreRecord[]): Promise<void>;
  /**
   * New session with the source's records (all or the first N). title, additionalDirectories and
   * extra default to the source's.
   */
  fork(sourceId: string, meta: NewSessionMeta, options?: ForkOptions): Promise<SessionMeta>;
  writeAttachment(id: string, name: string, data: string | Uint8Array): Promise<void>;
  /** undefined when the attachment does not exist. */
  readAttachment(id: string, name: string): Promise<Buffer | undefined>;
  /** Sorted names; [] when there are none. */
  listAttachments(id: string): Promise<string[]>;
  /** Idempotent. */
  deleteAttachment(id: string, name: string): Promise<void>;
}
