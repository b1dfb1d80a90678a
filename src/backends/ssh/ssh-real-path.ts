import type { Stats } from "node:fs";
import { FsOpError } from "../files/fs-errors.js";
import type { RealPathFs } from "../paths/real-path.js";
import type { RemoteFs, RemoteStats } from "./ssh-sftp.js";

// The gate decides on real paths (every link followed). For a remote workspace those links are on
// the remote, so the gate resolves through this: the same four calls as node:fs, answered over SFTP,
// with errors carrying the errno codes the resolver understands (ENOENT for a missing path).

function errnoError(error: unknown): Error {
  if (!(error instanceof FsOpError)) return error as Error;
  const code =
    error.errno ?? (error.code === "file_not_found" ? "ENOENT" : error.code === "permission_denied" ? "EACCES" : "EIO");
  return Object.assign(new Error(error.message), { code });
}

function asStats(info: RemoteStats): Stats {
  // SFTP v3 has no link count: a regular file counts as having one name.
  return {
    isDirectory: () => info.isDirectory(),
    isFile: () => info.isFile(),
    isSymbolicLink: () => info.isSymbolicLink(),
    nlink: info.isFile() ? 1 : 0,
    size: info.size,
    mode: info.mode,
  } as unknown as Stats;
}

export function createRemoteRealPathFs(fs: RemoteFs): RealPathFs {
  const wrap =
    <T, R>(run: (path: string) => Promise<T>, map: (value: T) => R) =>
    (path: string) =>
      run(path).then(map, (error: unknown) => {
        throw errnoError(error);
      });
  return {
    // OpenSSH's realpath accepts a missing last component; the resolver must learn it is missing.
    realpath: (path) =>
      fs
        .realpath(path)
        .then(async (real) => {
          await fs.lstat(real);
          return real;
        })
        .catch((error: unknown) => {
          throw errnoError(error);
        }),
    stat: wrap(fs.stat, asStats),
    lstat: wrap(fs.lstat, asStats),
    readlink: wrap(fs.readlink, (target: string) => target),
    // Only a regular file is read: a FIFO in a Makefile's place must not hold the call.
    readFile: async (path) => {
      const info = await fs.lstat(path).catch((error: unknown) => {
        throw errnoError(error);
      });
      if (!info.isFile()) throw Object.assign(new Error("not a regular file"), { code: "EFTYPE" });
      return fs.readFile(path).catch((error: unknown) => {
        throw errnoError(error);
      });
    },
  };
}
