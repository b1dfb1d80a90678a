import type { FileEntryWithStats } from "ssh2";
import { FsOpError, shownPath, toFsOpError } from "../files/fs-errors.js";
import { existsAndMkdirs, type RemoteStats } from "../ssh/ssh-sftp.js";
import type { RemoteFilesFs } from "../ssh/ssh-files.js";
import type { ContainerLink } from "./container-link.js";
import { ChannelLostError, type HelperOp } from "./helper-channel.js";

// The file primitives the remote file layer (ssh-files.ts) is written against, answered by the helper
// inside the container: each is one round trip on the open connection. A regular file with one name
// is overwritten in place, as the local backend does (its inode and mode kept); anything else (a new
// file, a link, a file with other hard links, which must not change through this name) is a temporary
// file next to the target renamed over it. A frame is handled only once it has arrived whole, so a lost
// connection never leaves half a write.

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;

export function statsOf(mode: number, size: number, mtime: number, uid = 0, gid = 0): RemoteStats {
  return {
    mode,
    uid,
    gid,
    size,
    atime: mtime,
    mtime,
    isDirectory: () => (mode & S_IFMT) === S_IFDIR,
    isFile: () => (mode & S_IFMT) === S_IFREG,
    isSymbolicLink: () => (mode & S_IFMT) === S_IFLNK,
  } as RemoteStats;
}

export function createContainerFs(link: ContainerLink): RemoteFilesFs {
  async function call(op: HelperOp, path: string, args: Array<string | Uint8Array> = []): Promise<Buffer[]> {
    try {
      return await (await link.channel()).request(op, [path, ...args]);
    } catch (error) {
      if (error instanceof ChannelLostError || !(error as { code?: string }).code)
        throw new FsOpError(`${(error as Error).message} ('${shownPath(path)}')`, "invalid_path");
      throw toFsOpError(error, path);
    }
  }
  const num = (field: Buffer | undefined) => Number(field?.toString() ?? "0");
  const statCall = async (op: "stat" | "lstat", path: string) => {
    const [mode, , uid, gid, size, mtime] = await call(op, path);
    return statsOf(num(mode), num(size), num(mtime), num(uid), num(gid));
  };
  const stat = (path: string) => statCall("stat", path);
  const lstat = (path: string) => statCall("lstat", path);

  const { exists, mkdirs } = existsAndMkdirs(stat, async (path) => void (await call("mkdir", path)));

  async function readdir(path: string): Promise<FileEntryWithStats[]> {
    const fields = await call("readdir", path);
    const entries: FileEntryWithStats[] = [];
    for (let i = 0; i + 3 < fields.length; i += 4) {
      const filename = fields[i]!.toString("utf8");
      entries.push({
        filename,
        longname: filename,
        attrs: statsOf(num(fields[i + 1]), num(fields[i + 2]), num(fields[i + 3])),
      } as FileEntryWithStats);
    }
    return entries;
  }

  return {
    stat,
    lstat,
    readdir,
    readFile: async (path) => (await call("read", path))[0] ?? Buffer.alloc(0),
    realpath: async (path) => (await call("realpath", path))[0]!.toString("utf8"),
    readlink: async (path) => (await call("readlink", path))[0]!.toString("utf8"),
    unlink: async (path) => void (await call("unlink", path)),
    exists,
    mkdirs,
    replaceFile: async (path, data, oldMode) =>
      void (await call("replace", path, [data, oldMode === undefined ? "" : (oldMode & 0o7777).toString(8)])),
    removeTree: async (path) => void (await call("rmtree", path)),
    async readWithStats(path, maxBytes) {
      const [mode, , uid, gid, size, mtime, bytes] = await call("readstat", path, [String(maxBytes)]);
      return { info: statsOf(num(mode), num(size), num(mtime), num(uid), num(gid)), ...(bytes ? { bytes } : {}) };
    },
    async swapFile(path, data, maxOldBytes) {
      const [existed, mode, hasOld, old] = await call("swap", path, [data, String(maxOldBytes)]);
      if (existed?.toString() !== "1") return { existed: false };
      return { existed: true, mode: num(mode), ...(hasOld?.toString() === "1" ? { old: old ?? Buffer.alloc(0) } : {}) };
    },
  };
}
