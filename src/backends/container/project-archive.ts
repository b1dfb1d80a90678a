import { createHash } from "node:crypto";
import { lstat, readdir, readFile, readlink } from "node:fs/promises";
import { join, posix } from "node:path";
import type { Readable } from "node:stream";

// Host trees as tar archives for the Engine API: the project copied into a container (copy mode),
// with what was copied recorded (the baseline /changes and /apply compare against), and a dev
// container's build context. Links are archived as links, never followed; sockets and devices are
// skipped.

export type BaselineEntry =
  { type: "file"; mode: number; size: number; mtime: number; sha256: string } | { type: "link"; target: string };

export type Baseline = Record<string, BaselineEntry>;

export const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

export type PackOptions = {
  /** Where the tree lands in the archive (e.g. the project's path inside, without the leading "/"). */
  prefix: string;
  uid?: number;
  gid?: number;
  /** Directory names left out at any depth. */
  skip?: readonly string[];
};

type TarPack = {
  entry(header: Record<string, unknown>, data?: Buffer | string): void;
  finalize(): void;
} & Readable;

async function loadPack(): Promise<TarPack> {
  const tar = (await import("tar-stream")) as unknown as { pack(): TarPack; default?: { pack(): TarPack } };
  return (tar.pack ?? tar.default!.pack)();
}

/**
 * The time a baseline keeps for a file whose content was taken at `takenAt` (ms). Times inside the
 * container are whole seconds: a file last written in the second its content was taken (or later)
 * can change again within that second, at the same size, and keep its time. Such a baseline keeps no
 * time (-1), so the change is found by its content.
 */
export const trustedTime = (mtime: number, takenAt: number) => (mtime < Math.floor(takenAt / 1000) ? mtime : -1);

/**
 * Archives `root` under `prefix` (its parent folders included, owned by root, 0755). Resolves when
 * the archive is complete; `stream` can be consumed meanwhile.
 */
export async function packTree(
  root: string,
  options: PackOptions,
): Promise<{ stream: Readable; done: Promise<Baseline> }> {
  const pack = await loadPack();
  const owner = { uid: options.uid ?? 0, gid: options.gid ?? 0 };
  const skip = new Set(options.skip ?? []);
  const baseline: Baseline = {};
  const prefix = options.prefix.replace(/^\/+|\/+$/g, "");
  const copyStarted = Date.now();
  const done = (async () => {
    const parts = prefix ? prefix.split("/") : [];
    for (let i = 1; i < parts.length; i++)
      pack.entry({ name: parts.slice(0, i).join("/"), type: "directory", mode: 0o755, uid: 0, gid: 0 });
    const rootInfo = await lstat(root);
    if (prefix)
      pack.entry({ name: prefix, type: "directory", mode: rootInfo.mode & 0o7777, mtime: rootInfo.mtime, ...owner });
    const walk = async (dir: string, rel: string): Promise<void> => {
      const names = (await readdir(dir)).sort();
      for (const name of names) {
        const path = join(dir, name);
        const relPath = rel ? `${rel}/${name}` : name;
        const name_ = prefix ? `${prefix}/${relPath}` : relPath;
        const info = await lstat(path).catch(() => undefined);
        if (!info) continue;
        if (info.isDirectory()) {
          if (skip.has(name)) continue;
          pack.entry({ name: name_, type: "directory", mode: info.mode & 0o7777, mtime: info.mtime, ...owner });
          await walk(path, relPath);
        } else if (info.isSymbolicLink()) {
          const target = await readlink(path);
          pack.entry({ name: name_, type: "symlink", linkname: target, mode: 0o777, mtime: info.mtime, ...owner });
          baseline[relPath] = { type: "link", target };
        } else if (info.isFile()) {
          const data = await readFile(path);
          const mode = info.mode & 0o7777;
          const mtime = Math.floor(info.mtimeMs / 1000);
          pack.entry(
            { name: name_, type: "file", mode, mtime: new Date(mtime * 1000), size: data.length, ...owner },
            data,
          );
          baseline[relPath] = {
            type: "file",
            mode,
            size: data.length,
            mtime: trustedTime(mtime, copyStarted),
            sha256: sha256(data),
          };
        }
      }
    };
    try {
      await walk(root, "");
    } finally {
      pack.finalize();
    }
    return baseline;
  })();
  // Errors surface through `done`; the stream just ends.
  done.catch(() => undefined);
  return { stream: pack, done };
}

/** The relative path of `path` under the archive's `prefix`, or undefined outside it. */
export function underPrefix(name: string, prefix: string): string | undefined {
  const clean = posix.normalize(name.replace(/^\.?\/+/, "")).replace(/\/+$/, "");
  const p = prefix.replace(/^\/+|\/+$/g, "");
  if (clean === p) return "";
  return clean.startsWith(`${p}/`) ? clean.slice(p.length + 1) : undefined;
}
