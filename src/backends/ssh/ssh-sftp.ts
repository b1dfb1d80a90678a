import { randomBytes } from "node:crypto";
import { posix } from "node:path";
import type { Attributes, FileEntryWithStats, SFTPWrapper } from "ssh2";
import { fileNotFoundMessage } from "../files/edit-semantics.js";
import { FsOpError, shownPath } from "../files/fs-errors.js";
import type { SshConnection } from "./ssh-connection.js";

// Promise-shaped SFTP primitives over the connection's shared SFTP session, with errors turned
// into the FsOpError messages the local backends use. Writes go to a temporary file next to the
// target and are renamed over it (posix-rename keeps it atomic), so a connection dropped mid-write
// leaves the old file intact instead of a truncated one; the old file's mode is kept.

const SFTP_NO_SUCH_FILE = 2;
const SFTP_PERMISSION_DENIED = 3;

export type RemoteStats = Attributes & { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean };

export function toRemoteError(error: unknown, path: string, target: string): FsOpError {
  if (error instanceof FsOpError) return error;
  const e = error as { code?: unknown; message?: string };
  const p = shownPath(path);
  if (e.code === SFTP_NO_SUCH_FILE) return new FsOpError(fileNotFoundMessage(p), "file_not_found", "ENOENT");
  if (e.code === SFTP_PERMISSION_DENIED)
    return new FsOpError(`Permission denied: '${p}'`, "permission_denied", "EACCES");
  if (typeof e.code === "number") return new FsOpError(`${e.message ?? "SFTP failure"} ('${p}')`, "invalid_path");
  // Not an SFTP status: the channel or the connection failed.
  return new FsOpError(`${target}: ${e.message ?? String(error)} ('${p}')`, "invalid_path");
}

export type RemoteFs = ReturnType<typeof createRemoteFs>;

/**
 * `exists` and `mkdir -p` over a remote's stat and mkdir (SFTP, the container helper): a missing path
 * is undefined, a file in the way of a folder is reported like the local backend does.
 */
export function existsAndMkdirs(stat: (path: string) => Promise<RemoteStats>, mkdir: (path: string) => Promise<void>) {
  async function exists(path: string): Promise<RemoteStats | undefined> {
    try {
      return await stat(path);
    } catch (error) {
      if (error instanceof FsOpError && error.code === "file_not_found") return undefined;
      throw error;
    }
  }

  async function mkdirs(dir: string, display: string): Promise<void> {
    const info = await exists(dir);
    if (info) {
      if (!info.isDirectory())
        throw new FsOpError(`Not a directory: a parent of '${shownPath(display)}' is a file`, "invalid_path");
      return;
    }
    const parent = posix.dirname(dir);
    if (parent !== dir) await mkdirs(parent, display);
    try {
      await mkdir(dir);
    } catch (error) {
      // A concurrent writer may have created it.
      if (!(await exists(dir))?.isDirectory()) throw error;
    }
  }
  return { exists, mkdirs };
}

export function createRemoteFs(connection: SshConnection) {
  const target = connection.target;

  /** Calls an SFTP method; a dropped connection rejects at once even if ssh2 never calls back. */
  async function call<T>(
    path: string,
    run: (sftp: SFTPWrapper, done: (error: Error | null | undefined, value?: T) => void) => void,
  ): Promise<T> {
    let sftp: SFTPWrapper;
    try {
      sftp = await connection.sftp();
    } catch (error) {
      throw new FsOpError(`${(error as Error).message} ('${shownPath(path)}')`, "invalid_path");
    }
    const dropped = connection.whenDropped();
    return new Promise<T>((resolve, reject) => {
      let done = false;
      void dropped.then((reason) => {
        if (done) return;
        done = true;
        reject(new FsOpError(`${reason} ('${shownPath(path)}')`, "invalid_path"));
      });
      try {
        run(sftp, (error, value) => {
          if (done) return;
          done = true;
          if (error) reject(toRemoteError(error, path, target));
          else resolve(value as T);
        });
      } catch (error) {
        done = true;
        reject(toRemoteError(error, path, target));
      }
    });
  }

  const stat = (path: string) => call<RemoteStats>(path, (s, d) => s.stat(path, (e, st) => d(e, st as RemoteStats)));
  const lstat = (path: string) => call<RemoteStats>(path, (s, d) => s.lstat(path, (e, st) => d(e, st as RemoteStats)));
  const readdir = (path: string) =>
    call<FileEntryWithStats[]>(path, (s, d) => s.readdir(path, (e, list) => d(e, list as FileEntryWithStats[])));
  const readFile = (path: string) => call<Buffer>(path, (s, d) => s.readFile(path, (e, data) => d(e, data)));
  const realpath = (path: string) => call<string>(path, (s, d) => s.realpath(path, (e, real) => d(e, real)));
  const unlink = (path: string) => call<void>(path, (s, d) => s.unlink(path, (e) => d(e)));
  const rmdir = (path: string) => call<void>(path, (s, d) => s.rmdir(path, (e) => d(e)));
  const mkdir = (path: string) => call<void>(path, (s, d) => s.mkdir(path, (e) => d(e)));
  const readlink = (path: string) => call<string>(path, (s, d) => s.readlink(path, (e, target) => d(e, target)));
  const chmod = (path: string, mode: number) => call<void>(path, (s, d) => s.chmod(path, mode, (e) => d(e)));

  const { exists, mkdirs } = existsAndMkdirs(stat, mkdir);

  async function writeAll(path: string, data: Uint8Array, mode: number | undefined): Promise<void> {
    const handle = await call<Buffer>(path, (s, d) =>
      s.open(path, "wx", mode === undefined ? {} : { mode }, (e, h) => d(e, h)),
    );
    try {
      // One request per 32 KiB (the size every SFTP server accepts), all in flight at once.
      const chunk = 32 * 1024;
      await call<void>(path, (s, d) => {
        let pending = Math.ceil(data.length / chunk);
        if (pending === 0) return d(null);
        for (let offset = 0; offset < data.length; offset += chunk) {
          const length = Math.min(chunk, data.length - offset);
          const buffer = Buffer.from(data.buffer, data.byteOffset + offset, length);
          s.write(handle, buffer, 0, length, offset, (e) => {
            if (e) d(e);
            else if (--pending === 0) d(null);
          });
        }
      });
    } finally {
      await call<void>(path, (s, d) => s.close(handle, (e) => d(e))).catch(() => {});
    }
  }

  async function rename(from: string, to: string): Promise<void> {
    let atomic = true;
    await call<void>(to, (s, d) => {
      try {
        // posix-rename@openssh.com replaces the target atomically.
        s.ext_openssh_rename(from, to, (e) => d(e));
      } catch {
        atomic = false;
        d(null);
      }
    });
    if (atomic) return;
    // Plain SFTP rename refuses an existing target on most servers.
    await unlink(to).catch(() => {});
    await call<void>(to, (s, d) => s.rename(from, to, (e) => d(e)));
  }

  /** Replaces (or creates) a file's content atomically, keeping the old file's mode. */
  async function replaceFile(path: string, data: Uint8Array, oldMode: number | undefined): Promise<void> {
    const temp = posix.join(
      posix.dirname(path),
      `.${posix.basename(path).slice(0, 200)}.deep-acp-${randomBytes(4).toString("hex")}.tmp`,
    );
    try {
      await writeAll(temp, data, oldMode === undefined ? undefined : oldMode & 0o7777);
      if (oldMode !== undefined) await chmod(temp, oldMode & 0o7777).catch(() => {});
      await rename(temp, path);
    } catch (error) {
      await unlink(temp).catch(() => {});
      throw error instanceof FsOpError
        ? new FsOpError(error.message.replace(temp, path), error.code, error.errno)
        : error;
    }
  }

  async function removeTree(path: string): Promise<void> {
    const info = await lstat(path);
    if (!info.isDirectory()) return unlink(path);
    const entries = await readdir(path);
    await Promise.all(entries.map((entry) => removeTree(posix.join(path, entry.filename))));
    await rmdir(path);
  }

  return { stat, lstat, readdir, readFile, realpath, readlink, unlink, exists, mkdirs, replaceFile, removeTree };
}
