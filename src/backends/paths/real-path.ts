export { isWithin } from "../../util/path-within.js";
import * as fsp from "node:fs/promises";
import { constants, type Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

// Where a path really leads. Every decision about a file is made on this, never on the string the
// model sent: `link.txt -> ~/.ssh/id_rsa` is a read of ~/.ssh/id_rsa. A path that does not exist
// yet resolves to its deepest existing ancestor's real path plus the missing rest, and a dangling
// link resolves to where writing through it would create the file.

export type RealTarget = {
  /** The absolute path as asked for (normalised, links not followed). */
  requested: string;
  /** Every link followed. */
  real: string;
  exists: boolean;
  isDirectory: boolean;
  /** Hard links of a regular file (1 for a file that has no other name); 0 for anything else. */
  hardLinks: number;
  /** The path could not be resolved (a link loop, a permission error): decide on `requested`, never remember. */
  unresolved?: string;
  /** Device and inode of an existing file, where the file system reports them (not over SFTP). */
  identity?: { dev: number; ino: number };
};

/** The node:fs/promises calls resolution needs; injectable so tests can swap links between calls. */
export type RealPathFs = {
  realpath(path: string): Promise<string>;
  lstat(path: string): Promise<Stats>;
  stat(path: string): Promise<Stats>;
  readlink(path: string): Promise<string>;
  /**
   * Link counts of regular files, for a file system whose stat does not report them (SFTP v3): asked
   * in one call per decision. Absent: `stat(...).nlink` is the count.
   */
  linkCounts?(paths: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /**
   * The bytes of a regular file (not through a final link, never waiting on a FIFO or device), for
   * the gate's command fingerprints (gate/commands/command-fingerprint.ts), read where the command runs.
   */
  readFile?(path: string): Promise<Buffer>;
};

export const nodeRealPathFs: RealPathFs = {
  realpath: (p) => fsp.realpath(p),
  lstat: (p) => fsp.lstat(p),
  stat: (p) => fsp.stat(p),
  readlink: (p) => fsp.readlink(p),
  readFile: readRegularFile,
};

/** O_NONBLOCK: a FIFO put in a file's place fails instead of stalling; O_NOFOLLOW: no link swapped in. */
async function readRegularFile(path: string): Promise<Buffer> {
  const handle = await fsp.open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  try {
    if (!(await handle.stat()).isFile()) throw Object.assign(new Error("not a regular file"), { code: "EFTYPE" });
    return await handle.readFile();
  } finally {
    await handle.close();
  }
}

const MAX_LINK_HOPS = 40;

export async function resolveRealTarget(path: string, fs: RealPathFs = nodeRealPathFs): Promise<RealTarget> {
  const requested = resolve(path);
  try {
    const { real, stats } = await realOf(requested, fs, 0);
    if (!stats) return { requested, real, exists: false, isDirectory: false, hardLinks: 0 };
    let hardLinks = stats.isFile() ? stats.nlink : 0;
    if (stats.isFile() && fs.linkCounts) {
      const count = (await fs.linkCounts([real])).get(real);
      // A count that cannot be learned counts as unresolved: the call asks, and nothing is remembered.
      if (count === undefined)
        throw Object.assign(new Error("link count unavailable"), { code: "its link count could not be read" });
      hardLinks = count;
    }
    const identity = typeof stats.ino === "number" && stats.ino > 0 ? { dev: stats.dev, ino: stats.ino } : undefined;
    return {
      requested,
      real,
      exists: true,
      isDirectory: stats.isDirectory(),
      hardLinks,
      ...(identity ? { identity } : {}),
    };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { requested, real: requested, exists: false, isDirectory: false, hardLinks: 0, unresolved: code };
  }
}

async function realOf(path: string, fs: RealPathFs, hops: number): Promise<{ real: string; stats?: Stats }> {
  if (hops > MAX_LINK_HOPS) throw Object.assign(new Error("too many links"), { code: "ELOOP" });
  try {
    const real = await fs.realpath(path);
    return { real, stats: await fs.stat(real) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") throw error;
  }
  const parent = dirname(path);
  if (parent === path) return { real: path };
  const parentReal = (await realOf(parent, fs, hops)).real;
  const here = join(parentReal, basename(path));
  const link = await fs.lstat(here).catch(() => undefined);
  // A dangling link: writing through it creates its target, so the target is what is touched.
  if (link?.isSymbolicLink()) return realOf(resolve(parentReal, await fs.readlink(here)), fs, hops + 1);
  return { real: here };
}

/** Real paths of the roots (a root that cannot be resolved stays as given). */
export async function realRoots(roots: readonly string[], fs: RealPathFs = nodeRealPathFs): Promise<string[]> {
  return Promise.all(roots.map((root) => fs.realpath(resolve(root)).catch(() => resolve(root))));
}
