// SHA-256 digests of the files a trust decision covers (hook scripts, a plugin's whole tree), and
// the words that say what changed since the user approved them.

import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, readdir, readlink, realpath, stat } from "node:fs/promises";
import { join, relative, resolve, sep } from "node:path";
import { isWithin } from "./path-within.js";

/**
 * Relative path -> digest. "missing" for a file that is gone. A symlink is recorded by its target and
 * the content behind it: "link:<target>=<digest>", or "link-out:<real path>=<digest>" when it leads
 * out of the tree, so changing the target's bytes is a change of the link.
 */
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
  const realRoot = await realpath(root).catch(() => resolve(root));
  // Folders reached through links out of the tree are walked too, each real folder once, their
  // files keyed under the link's own path.
  const visited = new Set<string>([realRoot]);
  const walk = async (shown: string, dir: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      out[key(root, shown) || "."] = "unreadable";
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++count > limit) {
        out["(truncated)"] = String(limit);
        return;
      }
      const path = join(dir, entry.name);
      const name = join(shown, entry.name);
      if (entry.isDirectory()) {
        if (skip.has(entry.name) || visited.has(path)) continue;
        if (shown !== dir) visited.add(path);
        await walk(name, path);
      } else if (entry.isSymbolicLink()) {
        const behind = await linkDigest(path, realRoot);
        out[key(root, name)] = behind.digest;
        if (behind.folder && !visited.has(behind.folder)) {
          visited.add(behind.folder);
          await walk(name, behind.folder);
        }
      } else if (entry.isFile()) {
        const info = await lstatBig(path).catch(() => undefined);
        const exec = info && (info.mode & 0o111n) !== 0n ? "+x:" : "";
        out[key(root, name)] = exec + (await digestStats(path, info));
      }
    }
  };
  await walk(root, root);
  return out;
}

/**
 * A link as a trust decision sees it: its target text and the bytes behind it, marked when it
 * leads out of the tree; `folder` is set for a link to a folder outside the tree, to walk it.
 */
async function linkDigest(path: string, realRoot: string): Promise<{ digest: string; folder?: string }> {
  const target = await readlink(path).catch(() => "?");
  const real = await realpath(path).catch(() => undefined);
  if (!real) return { digest: `link:${target}=missing` };
  const outside = !isWithin(real, realRoot);
  const info = await stat(real).catch(() => undefined);
  const behind = info?.isFile()
    ? await cachedSha256(real, await lstatBig(real))
    : info?.isDirectory()
      ? "dir"
      : "other";
  return {
    digest: outside ? `link-out:${real}=${behind}` : `link:${target}=${behind}`,
    ...(outside && info?.isDirectory() ? { folder: real } : {}),
  };
}

/** The links of a digest map that lead out of the tree: relative path -> real path. */
export function linksOut(digests: FileDigests): Array<{ name: string; target: string }> {
  return Object.entries(digests)
    .filter(([, digest]) => digest.startsWith("link-out:"))
    .map(([name, digest]) => ({ name, target: digest.slice("link-out:".length, digest.lastIndexOf("=")) }));
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

/** Digests of the existing regular files among `paths` that are inside `projectRoot`, by relative path. */
export async function projectFileDigests(paths: readonly string[], projectRoot: string): Promise<FileDigests> {
  const root = resolve(projectRoot);
  const realRoot = await realpath(root).catch(() => root);
  const out: FileDigests = {};
  for (const path of new Set(paths)) {
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) continue;
    const real = await realpath(path).catch(() => path);
    const inside = isWithin(path, root) || isWithin(real, realRoot);
    if (!inside) continue;
    const name = isWithin(path, root) ? relative(root, path) : relative(realRoot, real);
    // The real file's bytes: a link inside the project is trusted for what it points at now.
    out[name.split(sep).join("/")] = await digestPath(real);
  }
  return out;
}
