import { performStringReplacement } from "../files/edit-semantics.js";
import { FsOpError, shownPath, toFsOpError } from "../files/fs-errors.js";
import { DEFAULT_GREP_MAX_COUNT } from "../search/fs-search.js";
import { searchText } from "../search/grep-files.js";
import { fileFilter, planGlob, relativeMatcher } from "../search/glob-plan.js";
import { windowLines } from "../files/line-window.js";
import { detectMimeType, getMimeType, isTextMimeType, TEXT_PLAIN } from "../files/mime.js";
import type {
  BackendProtocol,
  DeleteResult,
  EditResult,
  FileData,
  FileDownloadResponse,
  FileInfo,
  FileUploadResponse,
  GlobResult,
  GrepMatch,
  GrepResult,
  LsResult,
  ReadRawResult,
  ReadResult,
  WriteResult,
} from "../protocol.js";
import { isUnderKey, joinKey, parentKey, virtualKey } from "./virtual-path.js";

// Session-scoped files kept in memory ("/"-rooted keys): offloaded tool results, conversation
// history. Directories exist implicitly while a file lies under them. The session store persists
// them through snapshot()/restore() and onChange().

export type StateFileSnapshot = {
  /** UTF-8 text, or base64 when `encoding` is "base64". */
  content: string;
  encoding: "utf8" | "base64";
  mimeType: string;
  createdAt: string;
  modifiedAt: string;
};

/** Plain JSON: safe to JSON.stringify and to restore in another process. */
export type StateSnapshot = { version: 1; files: Record<string, StateFileSnapshot> };

export type StateChange = { type: "write" | "delete"; path: string };

export type StateBackendOptions = {
  /** Default () => new Date(). */
  clock?: () => Date;
  /** Files to start with. Default none. */
  initial?: StateSnapshot;
};

export interface StateBackend extends BackendProtocol {
  delete(filePath: string): Promise<DeleteResult>;
  uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]>;
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]>;
  snapshot(): StateSnapshot;
  /** Replaces every file with the snapshot's (no change events). */
  restore(snapshot: StateSnapshot): void;
  /** Called after every write, edit or delete; returns an unsubscribe function. */
  onChange(listener: (change: StateChange) => void): () => void;
}

export function createStateBackend(options: StateBackendOptions = {}): StateBackend {
  const clock = options.clock ?? (() => new Date());
  const files = new Map<string, FileData>();
  const listeners = new Set<(change: StateChange) => void>();
  if (options.initial) restore(options.initial);

  const emit = (change: StateChange) => {
    for (const listener of listeners) {
      try {
        listener(change);
      } catch {
        // a broken listener must not undo or fail the write
      }
    }
  };
  const isDir = (key: string) => {
    if (key === "/") return true;
    for (const k of files.keys()) if (isUnderKey(k, key)) return true;
    return false;
  };
  const notFound = (key: string) => new FsOpError(`File '${shownPath(key)}' not found`, "file_not_found");
  const isDirError = (key: string) => new FsOpError(`'${shownPath(key)}' is a directory`, "is_directory");

  function getFile(path: string): { key: string; file: FileData } {
    const key = virtualKey(path);
    const file = files.get(key);
    if (file) return { key, file };
    throw isDir(key) ? isDirError(key) : notFound(key);
  }

  function put(path: string, content: string | Uint8Array): { key: string; before: string | null | undefined } {
    const key = virtualKey(path);
    if (isDir(key)) throw isDirError(key);
    for (let parent = parentKey(key); parent !== "/"; parent = parentKey(parent)) {
      if (files.has(parent))
        throw new FsOpError(`Not a directory: a parent of '${shownPath(key)}' is a file`, "invalid_path");
    }
    const now = clock().toISOString();
    const previous = files.get(key);
    let stored: string | Uint8Array = content;
    let mimeType: string;
    if (typeof content === "string") {
      const known = getMimeType(key);
      mimeType = known && isTextMimeType(known) ? known : TEXT_PLAIN;
    } else {
      mimeType = detectMimeType(key, content);
      if (isTextMimeType(mimeType)) stored = Buffer.from(content).toString("utf8");
      else stored = new Uint8Array(content);
    }
    files.set(key, { content: stored, mimeType, createdAt: previous?.createdAt ?? now, modifiedAt: now });
    emit({ type: "write", path: key });
    const before = previous === undefined ? null : typeof previous.content === "string" ? previous.content : undefined;
    return { key, before };
  }

  async function ls(path: string): Promise<LsResult> {
    try {
      const key = virtualKey(path);
      if (files.has(key)) return { error: `'${shownPath(key)}' is not a directory` };
      if (!isDir(key)) throw notFound(key);
      const entries = new Map<string, FileInfo>();
      const prefixLength = key === "/" ? 1 : key.length + 1;
      for (const [k, file] of files) {
        if (!isUnderKey(k, key)) continue;
        const rest = k.slice(prefixLength);
        const slash = rest.indexOf("/");
        if (slash === -1) {
          entries.set(k, { path: k, isDir: false, size: sizeOf(file), modifiedAt: file.modifiedAt });
        } else {
          const dir = joinKey(key, rest.slice(0, slash));
          const existing = entries.get(dir);
          if (!existing || file.modifiedAt > (existing.modifiedAt ?? "")) {
            entries.set(dir, { path: `${dir}/`, isDir: true, size: 0, modifiedAt: file.modifiedAt });
          }
        }
      }
      return { files: [...entries.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
    } catch (error) {
      return { error: toFsOpError(error, path).message };
    }
  }

  async function read(filePath: string, offset?: number, limit?: number): Promise<ReadResult> {
    try {
      const { file } = getFile(filePath);
      if (typeof file.content !== "string") return { content: new Uint8Array(file.content), mimeType: file.mimeType };
      const window = windowLines(file.content, offset, limit);
      if (window.error !== undefined) return { error: window.error };
      return { content: window.content, mimeType: file.mimeType, totalLines: window.totalLines };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function readRaw(filePath: string): Promise<ReadRawResult> {
    try {
      const { file } = getFile(filePath);
      return {
        data: { ...file, content: typeof file.content === "string" ? file.content : new Uint8Array(file.content) },
      };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function write(filePath: string, content: string | Uint8Array): Promise<WriteResult> {
    try {
      const { key, before } = put(filePath, content);
      return before === undefined ? { path: key } : { path: key, before };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function edit(filePath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    try {
      const { key, file } = getFile(filePath);
      if (typeof file.content !== "string") return { error: `Cannot edit binary file '${shownPath(key)}'` };
      const replaced = performStringReplacement(file.content, oldString, newString, replaceAll);
      if (!replaced.ok) return { error: replaced.error };
      put(key, replaced.content);
      return { path: key, occurrences: replaced.occurrences, before: file.content, after: replaced.content };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function remove(filePath: string): Promise<DeleteResult> {
    try {
      const key = virtualKey(filePath);
      const doomed = [...files.keys()].filter((k) => k === key || isUnderKey(k, key));
      if (doomed.length === 0 && key !== "/") throw notFound(key);
      for (const k of doomed) {
        files.delete(k);
        emit({ type: "delete", path: k });
      }
      return { path: key };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function grep(
    pattern: string,
    path?: string | null,
    glob?: string | null,
    maxCount?: number | null,
  ): Promise<GrepResult> {
    try {
      if (pattern.length === 0) return { error: "pattern must not be empty" };
      const limit = maxCount ?? DEFAULT_GREP_MAX_COUNT;
      if (!Number.isInteger(limit) || limit < 1)
        return { error: `max_count must be a positive integer, got ${maxCount}` };
      const base = virtualKey(path ?? "/");
      if (!files.has(base) && !isDir(base)) throw notFound(base);
      const filter = files.has(base) ? undefined : fileFilter(glob);
      const matches: GrepMatch[] = [];
      let truncated = false;
      for (const key of [...files.keys()].sort()) {
        if (truncated) break;
        if (key !== base && !isUnderKey(key, base)) continue;
        const content = files.get(key)!.content;
        if (typeof content !== "string") continue;
        if (filter && !filter(key.slice(base === "/" ? 1 : base.length + 1))) continue;
        if (pattern.includes("\n")) continue;
        searchText(content, pattern, (line, text) => {
          if (matches.length >= limit) {
            truncated = true;
            return false;
          }
          matches.push({ path: key, line, text });
          return true;
        });
      }
      return truncated ? { matches, truncated } : { matches };
    } catch (error) {
      return { error: toFsOpError(error, path ?? "/").message };
    }
  }

  async function glob(pattern: string, path?: string): Promise<GlobResult> {
    try {
      const plan = planGlob(pattern, path ?? "/");
      if ("error" in plan) return plan;
      const base = virtualKey(plan.base);
      const matcher = relativeMatcher(plan.rest);
      const found: FileInfo[] = [];
      for (const [key, file] of files) {
        if (!isUnderKey(key, base)) continue;
        if (matcher(key.slice(base === "/" ? 1 : base.length + 1))) {
          found.push({ path: key, isDir: false, size: sizeOf(file), modifiedAt: file.modifiedAt });
        }
      }
      return { files: found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
    } catch (error) {
      return { error: toFsOpError(error, path ?? pattern).message };
    }
  }

  async function uploadFiles(items: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    return items.map(([path, bytes]) => {
      try {
        put(path, bytes);
        return { path, error: null };
      } catch (error) {
        return { path, error: toFsOpError(error, path).code };
      }
    });
  }

  async function downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    return paths.map((path) => {
      try {
        const { file } = getFile(path);
        const content =
          typeof file.content === "string"
            ? new Uint8Array(Buffer.from(file.content, "utf8"))
            : new Uint8Array(file.content);
        return { path, content, error: null };
      } catch (error) {
        return { path, content: null, error: toFsOpError(error, path).code };
      }
    });
  }

  function snapshot(): StateSnapshot {
    const out: Record<string, StateFileSnapshot> = {};
    for (const [key, file] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const text = typeof file.content === "string";
      out[key] = {
        content: text ? (file.content as string) : Buffer.from(file.content as Uint8Array).toString("base64"),
        encoding: text ? "utf8" : "base64",
        mimeType: file.mimeType,
        createdAt: file.createdAt,
        modifiedAt: file.modifiedAt,
      };
    }
    return { version: 1, files: out };
  }

  function restore(snap: StateSnapshot): void {
    files.clear();
    for (const [path, file] of Object.entries(snap.files ?? {})) {
      let key: string;
      try {
        key = virtualKey(path);
      } catch {
        continue; // a hand-edited snapshot with a bad key loses that entry, not the session
      }
      const content = file.encoding === "base64" ? new Uint8Array(Buffer.from(file.content, "base64")) : file.content;
      files.set(key, { content, mimeType: file.mimeType, createdAt: file.createdAt, modifiedAt: file.modifiedAt });
    }
  }

  return {
    ls,
    read,
    readRaw,
    write,
    edit,
    grep,
    glob,
    delete: remove,
    uploadFiles,
    downloadFiles,
    snapshot,
    restore,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

function sizeOf(file: FileData): number {
  return typeof file.content === "string" ? Buffer.byteLength(file.content) : file.content.length;
}
