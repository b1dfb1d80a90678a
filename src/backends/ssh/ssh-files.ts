import { posix } from "node:path";
import { performStringReplacement } from "../files/edit-semantics.js";
import { FsOpError, shownPath } from "../files/fs-errors.js";
import { windowLines } from "../files/line-window.js";
import { detectMimeType, isTextMimeType, looksBinary } from "../files/mime.js";
import { checkPathText } from "../paths/path-guard.js";
import type {
  DeleteResult,
  EditResult,
  FileDownloadResponse,
  FileInfo,
  FileUploadResponse,
  LsResult,
  ReadRawResult,
  ReadResult,
  WriteResult,
} from "../protocol.js";
import type { RemoteFs, RemoteStats } from "./ssh-sftp.js";

// The file half of the SSH backend: the same results and messages as the local filesystem backend
// (real mode), every byte moved over SFTP. Paths are the remote's; relative ones resolve against
// the remote workspace root.

/**
 * The primitives, plus two optional one-round-trip forms a transport may offer (the container helper
 * does; SFTP has no such calls): each saves the round trips a read or a write would otherwise make.
 */
export type RemoteFilesFs = RemoteFs & {
  /** stat, and the bytes when it is a regular file of at most `maxBytes`. */
  readWithStats?(path: string, maxBytes: number): Promise<{ info: RemoteStats; bytes?: Buffer }>;
  /** Replaces (or creates; the parent must exist) atomically, keeping the mode, and says what was there. */
  swapFile?(
    path: string,
    data: Uint8Array,
    maxOldBytes: number,
  ): Promise<{ existed: false } | { existed: true; mode: number; old?: Buffer }>;
};

export type RemoteFilesOptions = {
  fs: RemoteFilesFs;
  rootDir: string;
  /** Largest file read whole, edited or returned as bytes. */
  maxFileBytes: number;
};

const toBytes = (buffer: Buffer) => new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);

export function createRemoteFiles(options: RemoteFilesOptions) {
  const { fs, rootDir, maxFileBytes } = options;

  function resolvePath(path: string): string {
    checkPathText(path);
    return posix.isAbsolute(path) ? posix.resolve(path) : posix.resolve(rootDir, path);
  }
  const message = (error: unknown, path: string) =>
    error instanceof FsOpError ? error.message : `${(error as Error).message} ('${shownPath(path)}')`;
  const code = (error: unknown) => (error instanceof FsOpError ? error.code : "invalid_path");

  function assertFile(info: RemoteStats, path: string): void {
    if (info.isDirectory()) throw new FsOpError(`'${shownPath(path)}' is a directory`, "is_directory");
    if (!info.isFile()) throw new FsOpError(`'${shownPath(path)}' is not a regular file`, "invalid_path");
    if (info.size > maxFileBytes) {
      throw new FsOpError(
        `File '${shownPath(path)}' is too large (${(info.size / 1048576).toFixed(1)} MB exceeds the ${maxFileBytes / 1048576} MB limit)`,
        "invalid_path",
      );
    }
  }

  async function readWhole(
    path: string,
  ): Promise<{ bytes: Buffer; info: RemoteStats; mimeType: string; text?: string }> {
    let info: RemoteStats;
    let bytes: Buffer;
    if (fs.readWithStats) {
      const both = await fs.readWithStats(path, maxFileBytes);
      info = both.info;
      assertFile(info, path);
      bytes = both.bytes ?? (await fs.readFile(path));
    } else {
      info = await fs.stat(path);
      assertFile(info, path);
      bytes = await fs.readFile(path);
    }
    const mimeType = detectMimeType(path, bytes);
    return { bytes, info, mimeType, ...(isTextMimeType(mimeType) ? { text: bytes.toString("utf8") } : {}) };
  }

  /** Writes and returns the previous text (null when new, undefined when binary or too large). */
  async function writeInternal(path: string, data: Uint8Array): Promise<string | null | undefined> {
    if (fs.swapFile) {
      let swapped;
      try {
        swapped = await fs.swapFile(path, data, maxFileBytes);
      } catch (error) {
        if (!(error instanceof FsOpError && error.code === "file_not_found")) throw error;
        await fs.mkdirs(posix.dirname(path), path);
        swapped = await fs.swapFile(path, data, maxFileBytes);
      }
      if (!swapped.existed) return null;
      return swapped.old !== undefined && isTextMimeType(detectMimeType(path, swapped.old))
        ? swapped.old.toString("utf8")
        : undefined;
    }
    const existing = await fs.exists(path);
    let before: string | null | undefined = null;
    if (existing) {
      if (existing.isDirectory()) throw new FsOpError(`'${shownPath(path)}' is a directory`, "is_directory");
      before = undefined;
      if (existing.isFile() && existing.size <= maxFileBytes) {
        const old = await fs.readFile(path);
        if (isTextMimeType(detectMimeType(path, old))) before = old.toString("utf8");
      }
    } else {
      await fs.mkdirs(posix.dirname(path), path);
    }
    await fs.replaceFile(path, data, existing?.mode);
    return before;
  }

  return {
    rootDir,
    resolvePath,

    async read(filePath: string, offset?: number, limit?: number): Promise<ReadResult> {
      try {
        const path = resolvePath(filePath);
        const whole = await readWhole(path);
        if (whole.text === undefined) return { content: toBytes(whole.bytes), mimeType: whole.mimeType };
        const window = windowLines(whole.text, offset, limit);
        if (window.error !== undefined) return { error: window.error };
        return { content: window.content, mimeType: whole.mimeType, totalLines: window.totalLines };
      } catch (error) {
        return { error: message(error, filePath) };
      }
    },

    async readRaw(filePath: string): Promise<ReadRawResult> {
      try {
        const whole = await readWhole(resolvePath(filePath));
        // SFTP v3 has no creation time; the modification time stands in.
        const modifiedAt = new Date((whole.info.mtime ?? 0) * 1000).toISOString();
        return {
          data: {
            content: whole.text ?? toBytes(whole.bytes),
            mimeType: whole.mimeType,
            createdAt: modifiedAt,
            modifiedAt,
          },
        };
      } catch (error) {
        return { error: message(error, filePath) };
      }
    },

    async write(filePath: string, content: string | Uint8Array): Promise<WriteResult> {
      try {
        const path = resolvePath(filePath);
        const before = await writeInternal(path, typeof content === "string" ? Buffer.from(content, "utf8") : content);
        return before === undefined ? { path } : { path, before };
      } catch (error) {
        return { error: message(error, filePath) };
      }
    },

    async edit(filePath: string, oldString: string, newString: string, replaceAll = false): Promise<EditResult> {
      try {
        const path = resolvePath(filePath);
        const whole = await readWhole(path);
        if (whole.text === undefined || looksBinary(whole.bytes))
          return { error: `Cannot edit binary file '${shownPath(path)}'` };
        const replaced = performStringReplacement(whole.text, oldString, newString, replaceAll);
        if (!replaced.ok) return { error: replaced.error };
        await fs.replaceFile(path, Buffer.from(replaced.content, "utf8"), whole.info.mode);
        return { path, occurrences: replaced.occurrences, before: whole.text, after: replaced.content };
      } catch (error) {
        return { error: message(error, filePath) };
      }
    },

    async ls(dirPath: string): Promise<LsResult> {
      try {
        const path = resolvePath(dirPath);
        const info = await fs.stat(path);
        if (!info.isDirectory()) return { error: `'${shownPath(path)}' is not a directory` };
        const entries = await fs.readdir(path);
        const files = await Promise.all(
          entries.map(async (entry): Promise<FileInfo> => {
            const shown = path === "/" ? `/${entry.filename}` : `${path}/${entry.filename}`;
            let stats = entry.attrs as RemoteStats;
            try {
              if (stats.isSymbolicLink()) stats = await fs.stat(shown);
            } catch {
              return { path: shown, isDir: false };
            }
            const dir = stats.isDirectory();
            return {
              path: dir ? `${shown}/` : shown,
              isDir: dir,
              size: dir ? 0 : stats.size,
              modifiedAt: new Date((stats.mtime ?? 0) * 1000).toISOString(),
            };
          }),
        );
        files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
        return { files };
      } catch (error) {
        return { error: message(error, dirPath) };
      }
    },

    async delete(filePath: string): Promise<DeleteResult> {
      try {
        const path = resolvePath(filePath);
        if (path === "/") return { error: "Refusing to delete the filesystem root" };
        await fs.removeTree(path);
        return { path };
      } catch (error) {
        return { error: message(error, filePath) };
      }
    },

    async uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]> {
      const responses: FileUploadResponse[] = [];
      for (const [path, bytes] of files) {
        try {
          await writeInternal(resolvePath(path), bytes);
          responses.push({ path, error: null });
        } catch (error) {
          responses.push({ path, error: code(error) });
        }
      }
      return responses;
    },

    async downloadFiles(paths: string[]): Promise<FileDownloadResponse[]> {
      const responses: FileDownloadResponse[] = [];
      for (const path of paths) {
        try {
          const whole = await readWhole(resolvePath(path));
          responses.push({ path, content: toBytes(whole.bytes), error: null });
        } catch (error) {
          responses.push({ path, content: null, error: code(error) });
        }
      }
      return responses;
    },

    /**
     * The remote's real path with symlinks resolved (SFTP realpath), for the gate's decisions. A
     * path that does not exist yet (a file about to be written) resolves through its deepest
     * existing ancestor, with the missing components kept as they are.
     */
    async realPath(path: string): Promise<string> {
      const full = resolvePath(path);
      const missing: string[] = [];
      let probe = full;
      for (;;) {
        try {
          const real = await fs.realpath(probe);
          return missing.length === 0 ? real : posix.join(real, ...missing.reverse());
        } catch (error) {
          const parent = posix.dirname(probe);
          if (!(error instanceof FsOpError) || error.code !== "file_not_found" || parent === probe) throw error;
          missing.push(posix.basename(probe));
          probe = parent;
        }
      }
    },
  };
}

/** The backend methods a remote file layer provides, as a backend spreads them in. */
export function fileOperations(files: ReturnType<typeof createRemoteFiles>) {
  const { ls, read, readRaw, write, edit, delete: remove, uploadFiles, downloadFiles } = files;
  return { ls, read, readRaw, write, edit, delete: remove, uploadFiles, downloadFiles };
}
