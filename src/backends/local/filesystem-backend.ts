import { constants } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { performStringReplacement } from "../files/edit-semantics.js";
import {
  assertRegularFile,
  overwrite,
  READ_FLAGS,
  readHead,
  streamWindow,
  toBytes,
  WRITE_FLAGS,
} from "../files/file-io.js";
import { FsOpError, shownPath, toFsOpError } from "../files/fs-errors.js";
import { globTree, grepTree, type SearchContext } from "../search/fs-search.js";
import { windowLines } from "../files/line-window.js";
import { detectMimeType, isTextMimeType, looksBinary } from "../files/mime.js";
import { createPathGuard, nodeFsOps, type FsOps, type ResolvedPath } from "../paths/path-guard.js";
import type {
  ApprovedTargets,
  BackendProtocol,
  DeleteResult,
  EditResult,
  FileData,
  FileDownloadResponse,
  FileInfo,
  FileUploadResponse,
  GlobResult,
  GrepResult,
  LsResult,
  ReadRawResult,
  ReadResult,
  WriteResult,
} from "../protocol.js";
import { findExecutable, type SpawnFn } from "../search/ripgrep.js";

// Files on disk. Real mode (default) is the session's view of the user's machine; virtual mode
// (used by the store backend) confines every operation to rootDir, see path-guard.ts.

export type FilesystemBackendOptions = {
  /** Relative paths resolve against it; in virtual mode nothing outside it is reachable. */
  rootDir: string;
  /** Default false: absolute paths are used as they are. */
  virtualMode?: boolean;
  /** Default 10. Larger files are streamed for text reads and skipped by grep, edit and binary reads. */
  maxFileSizeMb?: number;
  /** ripgrep binary. Default: `rg` on PATH; `false` forces the JS search. */
  ripgrep?: string | false;
  /**
   * Default "walk": glob lists files with the JS walk, which beat spawning `rg --files` on the
   * 50k-file benchmark tree (no process start; same ignore rules). "ripgrep" uses `rg --files`.
   * grep always uses ripgrep when available.
   */
  globWith?: "walk" | "ripgrep";
  /** Default 30000. A grep/glob still running then returns what it found, marked truncated. */
  searchTimeoutMs?: number;
  /** Default 100000. Most paths one glob returns. */
  globLimit?: number;
  /** Default "in-place" (keeps inode, mode, hard links). "atomic": temp file + rename, 0600 files in 0700 dirs. */
  writeMode?: "in-place" | "atomic";
  /** Default false. Create rootDir (0700) on first use instead of reporting it missing. */
  createRoot?: boolean;
  /** Default node:fs/promises. */
  fs?: FsOps;
  /** Default node:child_process spawn (used for ripgrep). */
  spawn?: SpawnFn;
  /** Set by forCall: a gated call's approved real paths, the only ones real mode opens for it. */
  approved?: ApprovedTargets;
};

export interface FilesystemBackend extends BackendProtocol {
  readonly rootDir: string;
  readonly virtualMode: boolean;
  delete(filePath: string): Promise<DeleteResult>;
  uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]>;
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]>;
}

export function createFilesystemBackend(options: FilesystemBackendOptions): FilesystemBackend {
  const fs = options.fs ?? nodeFsOps;
  const guard = createPathGuard({
    rootDir: options.rootDir,
    virtualMode: options.virtualMode ?? false,
    createRoot: options.createRoot ?? false,
    fs,
    ...(options.approved ? { approved: options.approved } : {}),
  });
  const maxBytes = Math.floor((options.maxFileSizeMb ?? 10) * 1024 * 1024);
  const atomic = options.writeMode === "atomic";
  const search: SearchContext = {
    guard,
    rgPath: options.ripgrep === false ? undefined : (options.ripgrep ?? findExecutable("rg")),
    maxFileSizeBytes: maxBytes,
    timeoutMs: options.searchTimeoutMs ?? 30_000,
    globLimit: options.globLimit ?? 100_000,
    globEngine: options.globWith ?? "walk",
    ...(options.spawn ? { spawn: options.spawn } : {}),
  };
  const tooLarge = (display: string, size: number, what: string) =>
    new FsOpError(
      `File '${shownPath(display)}' is too large to ${what} (${(size / 1048576).toFixed(1)} MB exceeds the ${maxBytes / 1048576} MB limit)`,
      "invalid_path",
    );

  async function openExisting(path: string, flags: number): Promise<{ target: ResolvedPath; handle: FileHandle }> {
    const target = guard.resolve(path);
    const real = await guard.existing(target);
    const handle = await guard.openChecked(real, flags, target.display);
    return { target, handle };
  }

  /** Whole content of an open regular file, text or bytes by MIME type. */
  async function readWhole(handle: FileHandle, display: string, what: string) {
    const info = await handle.stat();
    assertRegularFile(info, display);
    if (info.size > maxBytes) throw tooLarge(display, info.size, what);
    const bytes = await handle.readFile();
    const mimeType = detectMimeType(display, bytes);
    return { bytes, mimeType, info, text: isTextMimeType(mimeType) ? bytes.toString("utf8") : undefined };
  }

  async function read(filePath: string, offset?: number, limit?: number): Promise<ReadResult> {
    try {
      const { target, handle } = await openExisting(filePath, READ_FLAGS);
      try {
        const info = await handle.stat();
        assertRegularFile(info, target.display);
        const mimeType = detectMimeType(target.display, await readHead(handle, info.size));
        if (!isTextMimeType(mimeType)) {
          if (info.size > maxBytes) throw tooLarge(target.display, info.size, "read");
          return { content: toBytes(await handle.readFile()), mimeType };
        }
        const window =
          info.size <= maxBytes
            ? windowLines((await handle.readFile()).toString("utf8"), offset, limit)
            : await streamWindow(handle, offset, limit);
        if (window.error !== undefined) return { error: window.error };
        return { content: window.content, mimeType, totalLines: window.totalLines };
      } finally {
        await handle.close();
      }
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function readRaw(filePath: string): Promise<ReadRawResult> {
    try {
      const { target, handle } = await openExisting(filePath, READ_FLAGS);
      try {
        const whole = await readWhole(handle, target.display, "read");
        const data: FileData = {
          content: whole.text ?? toBytes(whole.bytes),
          mimeType: whole.mimeType,
          createdAt: whole.info.birthtime.toISOString(),
          modifiedAt: whole.info.mtime.toISOString(),
        };
        return { data };
      } finally {
        await handle.close();
      }
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  /** Writes and returns the previous text (null when the file is new, undefined when binary/huge). */
  async function writeInternal(
    filePath: string,
    content: string | Uint8Array,
  ): Promise<{ display: string; before: string | null | undefined }> {
    const target = guard.resolve(filePath);
    if (guard.virtualMode && target.display === "/") throw new FsOpError("'/' is a directory", "is_directory");
    const real = await guard.forCreate(target);
    const data = typeof content === "string" ? Buffer.from(content, "utf8") : content;
    if (atomic) {
      const before = await previousText(real, target.display);
      await writeFileAtomic(real, data, { mode: 0o600, dirMode: 0o700 }).catch((error: unknown) => {
        throw toFsOpError(error, target.display);
      });
      return { display: target.display, before };
    }
    await fs.mkdir(dirname(real), { recursive: true }).catch((error: unknown) => {
      throw toFsOpError(error, target.display);
    });
    let handle: FileHandle;
    let before: string | null | undefined = null;
    try {
      handle = await guard.openChecked(real, WRITE_FLAGS | constants.O_CREAT | constants.O_EXCL, target.display, 0o666);
    } catch (error) {
      if (!(error instanceof FsOpError) || error.errno !== "EEXIST") throw error;
      handle = await guard.openChecked(real, WRITE_FLAGS, target.display);
      before = undefined;
    }
    try {
      const info = await handle.stat();
      assertRegularFile(info, target.display);
      if (before === undefined && info.size <= maxBytes) {
        const old = await handle.readFile();
        if (isTextMimeType(detectMimeType(target.display, old))) before = old.toString("utf8");
      }
      await overwrite(handle, data);
    } finally {
      await handle.close();
    }
    return { display: target.display, before };
  }

  async function previousText(real: string, display: string): Promise<string | null | undefined> {
    let handle: FileHandle;
    try {
      handle = await guard.openChecked(real, READ_FLAGS, display);
    } catch (error) {
      if (toFsOpError(error, display).code === "file_not_found") return null;
      throw error;
    }
    try {
      const info = await handle.stat();
      assertRegularFile(info, display);
      if (info.size > maxBytes) return undefined;
      const old = await handle.readFile();
      return isTextMimeType(detectMimeType(display, old)) ? old.toString("utf8") : undefined;
    } finally {
      await handle.close();
    }
  }

  async function write(filePath: string, content: string | Uint8Array): Promise<WriteResult> {
    try {
      const { display, before } = await writeInternal(filePath, content);
      return before === undefined ? { path: display } : { path: display, before };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function edit(filePath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
    try {
      const flags = atomic ? READ_FLAGS : WRITE_FLAGS;
      const { target, handle } = await openExisting(filePath, flags);
      let after: string;
      let before: string;
      let occurrences: number;
      try {
        const whole = await readWhole(handle, target.display, "edit");
        if (whole.text === undefined || looksBinary(whole.bytes)) {
          return { error: `Cannot edit binary file '${shownPath(target.display)}'` };
        }
        before = whole.text;
        const replaced = performStringReplacement(before, oldString, newString, replaceAll);
        if (!replaced.ok) return { error: replaced.error };
        after = replaced.content;
        occurrences = replaced.occurrences;
        if (!atomic) {
          await overwrite(handle, Buffer.from(after, "utf8"));
        }
      } finally {
        await handle.close();
      }
      if (atomic) await writeInternal(filePath, after);
      return { path: target.display, occurrences, before, after };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function ls(path: string): Promise<LsResult> {
    try {
      const target = guard.resolve(path);
      const real = await guard.existing(target);
      const info = await fs.stat(real);
      if (!info.isDirectory()) return { error: `'${shownPath(target.display)}' is not a directory` };
      const entries = await fs.readdir(real, { withFileTypes: true });
      const root = guard.virtualMode ? await guard.realRoot() : undefined;
      const files = await Promise.all(
        entries.map(async (entry): Promise<FileInfo> => {
          const host = join(real, entry.name);
          const shown =
            target.display === "/" ? `/${entry.name}` : `${target.display.replace(/\/+$/, "")}/${entry.name}`;
          try {
            let stats = await fs.lstat(host);
            if (stats.isSymbolicLink()) {
              // Virtual mode never reports what lies behind a link leaving the root.
              if (
                root &&
                !(await guard.existing({ full: host, display: shown }).then(
                  () => true,
                  () => false,
                ))
              ) {
                return { path: shown, isDir: false };
              }
              stats = await fs.stat(host);
            }
            const dir = stats.isDirectory();
            return {
              path: dir ? `${shown}/` : shown,
              isDir: dir,
              size: dir ? 0 : stats.size,
              modifiedAt: stats.mtime.toISOString(),
            };
          } catch {
            return { path: shown, isDir: false };
          }
        }),
      );
      files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
      return { files };
    } catch (error) {
      return { error: toFsOpError(error, path).message };
    }
  }

  async function remove(filePath: string): Promise<DeleteResult> {
    try {
      const target = guard.resolve(filePath);
      if (guard.virtualMode && target.display === "/") {
        const root = await guard.realRoot();
        for (const entry of await fs.readdir(root, { withFileTypes: true }))
          await fs.rm(join(root, entry.name), { recursive: true, force: true });
        return { path: "/" };
      }
      if (target.full === "/") return { error: "Refusing to delete the filesystem root" };
      let host = target.full;
      if (guard.virtualMode) {
        // The parent must resolve inside the root; the entry itself is removed, never followed.
        const parent = await guard.existing({ full: dirname(target.full), display: dirname(target.display) });
        host = join(parent, basename(target.full));
      } else {
        // Folders on the way are followed to their real path; the entry itself (even a link) is removed, never followed.
        const parent = await fs.realpath(dirname(target.full)).catch((error: unknown) => {
          throw toFsOpError(error, target.display);
        });
        host = join(parent, basename(target.full));
        if (!(await fs.lstat(host)).isSymbolicLink()) guard.checkApproved(target, host);
      }
      await fs.lstat(host);
      await fs.rm(host, { recursive: true, force: false });
      return { path: target.display };
    } catch (error) {
      return { error: toFsOpError(error, filePath).message };
    }
  }

  async function uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
    const responses: FileUploadResponse[] = [];
    for (const [path, bytes] of files) {
      try {
        await writeInternal(path, bytes);
        responses.push({ path, error: null });
      } catch (error) {
        responses.push({ path, error: toFsOpError(error, path).code });
      }
    }
    return responses;
  }

  async function downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
    const responses: FileDownloadResponse[] = [];
    for (const path of paths) {
      try {
        const { target, handle } = await openExisting(path, READ_FLAGS);
        try {
          const whole = await readWhole(handle, target.display, "download");
          responses.push({ path, content: toBytes(whole.bytes), error: null });
        } finally {
          await handle.close();
        }
      } catch (error) {
        responses.push({ path, content: null, error: toFsOpError(error, path).code });
      }
    }
    return responses;
  }

  return {
    rootDir: guard.rootDir,
    virtualMode: guard.virtualMode,
    ls,
    read,
    readRaw,
    write,
    edit,
    grep: (pattern, path, glob, maxCount): Promise<GrepResult> => grepTree(search, pattern, path, glob, maxCount),
    glob: (pattern, path): Promise<GlobResult> => globTree(search, pattern, path),
    delete: remove,
    uploadFiles,
    downloadFiles,
    // Virtual mode opens nothing by a host path the gate approved; real mode is bound per call.
    ...(guard.virtualMode
      ? {}
      : { forCall: (approved) => createFilesystemBackend({ ...options, ripgrep: search.rgPath ?? false, approved }) }),
  };
}
