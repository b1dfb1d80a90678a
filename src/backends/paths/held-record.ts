import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isWithin } from "../../util/path-within.js";

// "Held paths": the trusted record of what decides what runs on the host, taken before a command the
// host does not control (a sandboxed or container command, a dev container's postCreateCommand) and
// checked after it (held-restore.ts). A read-only mount protects a path, not what the host will open:
// `mv tools tools.old && mkdir -p tools/hooks` moves the mount away with its parent, and a linked
// `.git` can be replaced by a real folder. So the record keeps every component on the way from the
// root to each surface — a folder by its identity, a link by its target, a file by its identity and
// (when small) its bytes, or the fact that it is missing — and the check puts each back.

/** What one path component was when the record was taken. */
export type HeldEntry =
  | { kind: "missing" }
  | { kind: "dir"; id: string; names?: readonly string[] }
  | { kind: "link"; target: string }
  | { kind: "file"; id: string; mode: number; content?: Buffer };

export type HeldComponent = { path: string; entry: HeldEntry; reason: string };

/**
 * One surface to hold: an absolute path (inside a root) and what it is to the host. `contents`: a
 * folder no mount keeps read-only (bind mode's binds are fixed when the container is made), so what
 * is inside is held too, bounded (HELD_FOLDER_LIMIT entries; a bigger folder is held by identity).
 */
export type HeldSurface = { path: string; reason: string; contents?: boolean };

export type HeldPaths = {
  roots: readonly string[];
  /** By depth, parents first: the check walks them in this order. */
  components: readonly HeldComponent[];
};

/** Files larger than this are held by identity only (a read-only mount keeps their bytes). */
export const HELD_CONTENT_LIMIT = 1024 * 1024;
export const HELD_FOLDER_LIMIT = 200;

const depth = (path: string) => path.split("/").filter(Boolean).length;

/** The record of `surfaces` (those inside `roots`) and each component on the way to them. */
export async function holdPaths(roots: readonly string[], surfaces: readonly HeldSurface[]): Promise<HeldPaths> {
  const absoluteRoots = roots.map((root) => resolve(root));
  const wanted = new Map<string, { reason: string; surface: boolean }>();
  for (const surface of surfaces) {
    const path = resolve(surface.path);
    const root = absoluteRoots.find((r) => isWithin(path, r) && path !== r);
    if (!root) continue;
    wanted.set(path, { reason: surface.reason, surface: true });
    for (let dir = dirname(path); dir !== root && isWithin(dir, root); dir = dirname(dir))
      if (!wanted.has(dir))
        wanted.set(dir, { reason: `a folder on the way to ${path} (${surface.reason})`, surface: false });
  }
  const entries = await Promise.all(
    [...wanted].map(async ([path, { reason, surface }]) => ({ path, reason, entry: await entryOf(path, surface) })),
  );
  // Below a missing component everything is missing too: holding its absence is enough.
  const missing = entries.filter((c) => c.entry.kind === "missing").map((c) => c.path);
  const inside = await Promise.all(
    surfaces
      .filter((surface) => surface.contents)
      .map((surface) => entries.find((c) => c.path === resolve(surface.path) && c.entry.kind === "dir"))
      .map((folder) => (folder ? holdContents(folder) : [])),
  );
  const components = [...entries, ...inside.flat()]
    .filter((c) => !missing.some((m) => m !== c.path && isWithin(c.path, m)))
    .sort((a, b) => depth(a.path) - depth(b.path) || a.path.localeCompare(b.path));
  return { roots: absoluteRoots, components };
}

/** Everything inside `folder` (bounded), each with its bytes; the folder's names recorded in place. */
async function holdContents(folder: HeldComponent): Promise<HeldComponent[]> {
  const out: HeldComponent[] = [];
  const folders = [folder];
  while (folders.length > 0) {
    const dir = folders.shift()!;
    if (dir.entry.kind !== "dir") continue;
    const names = tryOr(() => readdirSync(dir.path), [] as string[]);
    if (out.length + names.length > HELD_FOLDER_LIMIT) return [];
    dir.entry = { ...dir.entry, names: names.sort() };
    for (const name of names) {
      const path = join(dir.path, name);
      const child = { path, reason: `inside ${folder.path} (${folder.reason})`, entry: await entryOf(path, true) };
      out.push(child);
      if (child.entry.kind === "dir") folders.push(child);
    }
  }
  return out;
}

/**
 * Synchronous on purpose: a few dozen lstats of cached inodes take well under a millisecond on the
 * event loop, while the same through the thread pool cost several under load (measured, see
 * docs/architecture.md), and this runs around every command.
 */
function tryOr<T, F>(read: () => T, fallback: F): T | F {
  try {
    return read();
  } catch {
    return fallback;
  }
}

/** The bytes of `path` if it is still a regular file when opened (no link followed, no FIFO waited on). */
function readRegularFile(path: string): Buffer | undefined {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    return fstatSync(fd).isFile() ? readFileSync(fd) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** What is at `path` now; with `withContent` a file's bytes when small, with `names` a folder's names. */
export async function entryOf(path: string, withContent: boolean, names = false): Promise<HeldEntry> {
  const info = tryOr(() => lstatSync(path, { bigint: true }), undefined);
  if (!info) return { kind: "missing" };
  const id = `${info.dev}:${info.ino}`;
  if (info.isSymbolicLink()) return { kind: "link", target: tryOr(() => readlinkSync(path), "") };
  if (info.isDirectory()) {
    if (!names) return { kind: "dir", id };
    return { kind: "dir", id, names: tryOr(() => readdirSync(path), [] as string[]).sort() };
  }
  const mode = Number(info.mode & 0o7777n);
  // A FIFO or device (a config can name one as an include) is held by identity only: reading it would stall.
  if (!withContent || !info.isFile() || info.size > BigInt(HELD_CONTENT_LIMIT)) return { kind: "file", id, mode };
  const content = tryOr(() => readRegularFile(path), undefined);
  return content ? { kind: "file", id, mode, content } : { kind: "file", id, mode };
}

/** Whether `now` is still what `held` recorded (a file's bytes too, when they were held). */
export function sameEntry(held: HeldEntry, now: HeldEntry): boolean {
  if (held.kind !== now.kind) return false;
  if (held.kind === "link") return held.target === (now as typeof held).target;
  if (held.kind === "dir") {
    const dir = now as typeof held;
    return held.id === dir.id && (!held.names || addedNames(held, dir).length === 0);
  }
  if (held.kind === "file") {
    const file = now as typeof held;
    // With its bytes held, a file is what its bytes and mode are (one restored from the copy has a new inode).
    if (!held.content) return held.id === file.id;
    return held.mode === file.mode && file.content !== undefined && held.content.equals(file.content);
  }
  return true;
}

/** Names in `now` that `held` did not have (what was moved aside before does not count). */
export function addedNames(held: { names?: readonly string[] }, now: { names?: readonly string[] }): string[] {
  const before = new Set(held.names ?? []);
  return (now.names ?? []).filter((name) => !before.has(name) && !name.includes(".deep-acp-moved"));
}

/**
 * Existing folders on the way from a root to each existing surface (not the roots, not the surfaces,
 * not links): a sandbox or bind mode mounts each over itself (writable), so it is a mount point and a
 * command cannot rename or remove it (EBUSY) — what keeps `mv tools tools.old` from moving a
 * read-only `tools/hooks` away while the command runs. Synchronous: a background process's mounts
 * are built without waiting.
 */
export function anchorFolders(roots: readonly string[], surfaces: readonly string[]): string[] {
  const absoluteRoots = roots.map((root) => resolve(root));
  const own = new Set(surfaces.map((s) => resolve(s)));
  const out = new Set<string>();
  for (const surface of own) {
    const root = absoluteRoots.find((r) => isWithin(surface, r) && surface !== r);
    if (!root) continue;
    for (let dir = dirname(surface); dir !== root && isWithin(dir, root); dir = dirname(dir))
      if (!own.has(dir) && isFolder(dir)) out.add(dir);
  }
  return [...out].sort((a, b) => depth(a) - depth(b) || a.localeCompare(b));
}

function isFolder(path: string): boolean {
  try {
    return lstatSync(path).isDirectory();
  } catch {
    return false;
  }
}
