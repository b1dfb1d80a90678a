// SHA-256 digests of the files a trust decision covers (hook scripts, a plugin's whole tree), and
// the words that say what changed since the user approved them.

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, readlink } from "node:fs/promises";
import { join, relative, sep } from "node:path";

/** Relative path -> digest. "missing" for a file that is gone; "link:<target>" for a symlink. */
export type FileDigests = Record<string, string>;

// Digests of unchanged files are reused within a process (a /reload re-inspects every plugin). The
// key includes the inode change time, which no user-level call can set back, so a rewritten file is
// always hashed again.
const cache = new Map<string, string>();
const CACHE_LIMIT = 100_000;

type Stats = Awaited<ReturnType<typeof lstatBig>>;
const lstatBig = (path: string) => lstat(path, { bigint: true });

async function cachedSha256(path: string, info: Stats): Promise<string> {
  const key = `${path}\0${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
  const known = cache.get(key);
  if (known) return known;
  const digest = await sha256File(path);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(key, digest);
  return digest;
}

async function sha256File(path: string): Promise<string> {
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** Digest of one path as it is now; symlinks are recorded by target, not followed. */
export async function digestPath(path: string): Promise<string> {
  return digestStats(path, await lstatBig(path).catch(() => undefined));
}

/** digestPath for a path already lstat'ed (undefined: the lstat failed), so a tree walk stats each file once. */
async function digestStats(path: string, info: Stats | undefined): Promise<string> {
  if (!info) return "missing";
  try {
    if (info.isSymbolicLink()) return `link:${await readlink(path)}`;
    if (info.isFile()) return await cachedSha256(path, info);
    return info.isDirectory() ? "dir" : "other";
  } catch {
    return "missing";
  }
}

export type TreeDigestOptions = {
  /** Directory names not descended into (e.g. ".git"). Default none. */
  skipDirs?: readonly string[];
  /** Stop after this many entries; the digest then records that it was cut. Default 50,000. */
  maxEntries?: number;
};

/**
 * Every file, symlink and directory under `root` (not following links), keyed by the path relative
 * to `root` with "/" separators. Permission bits of executables count: chmod +x changes what runs.
 */
export async function treeDigest(root: string, options: TreeDigestOptions = {}): Promise<FileDigests> {
  const skip = new Set(options.skipDirs ?? []);
  const limit = options.maxEntries ?? 50_000;
  const out: FileDigests = {};
  let count = 0;
  const walk = async (dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      out[key(root, dir) || "."] = "unreadable";
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++count > limit) {
        out["(truncated)"] = String(limit);
        return;
      }
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (skip.has(entry.name)) continue;
        await walk(path);
      } else if (entry.isSymbolicLink()) {
        out[key(root, path)] = await digestPath(path);
      } else if (entry.isFile()) {
        const info = await lstatBig(path).catch(() => undefined);
        const exec = info && (info.mode & 0o111n) !== 0n ? "+x:" : "";
        out[key(root, path)] = exec + (await digestStats(path, info));
      }
    }
  };
  await walk(root);
  return out;
}

function key(root: string, path: string): string {
  return relative(root, path).split(sep).join("/");
}

/** One short phrase per difference, e.g. "hooks/check.sh changed", sorted by path. */
export function describeDigestChanges(before: FileDigests, after: FileDigests): string[] {
  const names = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const out: string[] = [];
  for (const name of names) {
    const was = before[name];
    const now = after[name];
    if (was === now) continue;
    if (was === undefined || was === "missing") out.push(`${name} added`);
    else if (now === undefined || now === "missing") out.push(`${name} removed`);
    else out.push(`${name} changed`);
  }
  return out;
}

/** A stable digest of a digest map (sorted keys). */
export function digestOfDigests(digests: FileDigests): string {
  const hash = createHash("sha256");
  for (const name of Object.keys(digests).sort()) hash.update(`${name}\0${digests[name]}\n`);
  return hash.digest("hex");
}
