import { chmod, lstat, mkdir, readFile, readlink, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { dirname, join, posix } from "node:path";
import { isWithin } from "../paths/real-path.js";
import type { ContainerLink } from "./container-link.js";
import { readArchive } from "./container-files.js";
import type { Docker } from "./engine.js";
import { sha256, trustedTime, underPrefix, type Baseline, type BaselineEntry } from "./project-archive.js";

// Copy mode's way back: what differs in the container from the baseline (the project as it was
// copied in), and writing a change to the host project. A host file that no longer matches its
// baseline was changed on the host since the copy: a conflict, named and never overwritten. Writes
// go to the real path under the project root (a folder swapped for a link to elsewhere is refused)
// and replace files atomically; links are applied only when they lead inside the project.

export type ChangeKind = "added" | "modified" | "deleted";

export type TreeEntry = {
  type: "file" | "link" | "dir" | "other";
  mode: number;
  size: number;
  mtime: number;
  target?: string;
  /** The file's bytes (read on demand from a running container, or already at hand from an archive). */
  content?: () => Promise<Buffer>;
};

export type Change = { path: string; kind: ChangeKind; type: "file" | "link"; entry?: TreeEntry };

const TYPE_MASK = 0o170000;
const typeOf = (mode: number): TreeEntry["type"] =>
  (mode & TYPE_MASK) === 0o100000
    ? "file"
    : (mode & TYPE_MASK) === 0o120000
      ? "link"
      : (mode & TYPE_MASK) === 0o040000
        ? "dir"
        : "other";

/** The project tree inside a running container, through the helper. */
export async function helperTree(link: ContainerLink, containerRoot: string): Promise<Map<string, TreeEntry>> {
  const channel = await link.channel();
  const fields = await channel.request("walk", [containerRoot]);
  const tree = new Map<string, TreeEntry>();
  for (let i = 0; i + 4 < fields.length; i += 5) {
    const rel = fields[i]!.toString("utf8");
    const mode = Number(fields[i + 1]!.toString());
    const type = typeOf(mode);
    const path = posix.join(containerRoot, rel);
    tree.set(rel, {
      type,
      mode: mode & 0o7777,
      size: Number(fields[i + 2]!.toString()),
      mtime: Number(fields[i + 3]!.toString()),
      ...(type === "link" ? { target: fields[i + 4]!.toString("utf8") } : {}),
      ...(type === "file"
        ? { content: async () => (await (await link.channel()).request("read", [path]))[0] ?? Buffer.alloc(0) }
        : {}),
    });
  }
  return tree;
}

/** The project tree of a container that may be stopped, through the archive API. */
export async function archiveTree(docker: Docker, containerId: string, containerRoot: string) {
  const archive = await docker.getContainer(containerId).getArchive({ path: containerRoot });
  const prefix = posix.basename(containerRoot);
  const tree = new Map<string, TreeEntry>();
  for (const e of await readArchive(archive)) {
    const rel = underPrefix(e.name, prefix);
    if (!rel) continue;
    const type = e.type === "directory" ? "dir" : e.type === "symlink" ? "link" : e.type === "file" ? "file" : "other";
    const data = e.data;
    tree.set(rel, {
      type,
      mode: e.mode & 0o7777,
      size: e.size,
      mtime: e.mtime,
      ...(e.linkname !== undefined ? { target: e.linkname } : {}),
      ...(data ? { content: async () => data } : {}),
    });
  }
  return tree;
}

/** What differs from the baseline, sorted by path. Files of the same size, time and mode are unchanged. */
export async function diffTree(baseline: Baseline, tree: Map<string, TreeEntry>): Promise<Change[]> {
  const changes: Change[] = [];
  for (const [path, entry] of tree) {
    if (entry.type !== "file" && entry.type !== "link") continue;
    const base = baseline[path];
    if (!base) {
      changes.push({ path, kind: "added", type: entry.type, entry });
      continue;
    }
    if (!(await sameAsBaseline(base, entry))) changes.push({ path, kind: "modified", type: entry.type, entry });
  }
  for (const [path, base] of Object.entries(baseline)) {
    const entry = tree.get(path);
    if (!entry || (entry.type !== "file" && entry.type !== "link"))
      changes.push({ path, kind: "deleted", type: base.type });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

async function sameAsBaseline(base: BaselineEntry, entry: TreeEntry): Promise<boolean> {
  if (base.type === "link") return entry.type === "link" && entry.target === base.target;
  if (entry.type !== "file" || entry.size !== base.size || entry.mode !== base.mode) return false;
  if (entry.mtime === base.mtime) return true;
  return sha256(await entry.content!()) === base.sha256;
}

/** Why writing `change` to the host would overwrite work done there since the copy, or undefined. */
export async function hostConflict(hostRoot: string, change: Change, base: BaselineEntry | undefined) {
  const path = join(hostRoot, change.path);
  const info = await lstat(path).catch(() => undefined);
  if (!base) {
    if (!info) return undefined;
    if (info.isFile() && change.entry?.type === "file" && change.entry.content) {
      if (sha256(await readFile(path)) === sha256(await change.entry.content())) return undefined;
    }
    return "created on the host since the copy";
  }
  if (!info) return "deleted on the host since the copy";
  if (base.type === "link")
    return info.isSymbolicLink() && (await readlink(path)) === base.target
      ? undefined
      : "changed on the host since the copy";
  if (!info.isFile()) return "changed on the host since the copy";
  return sha256(await readFile(path)) === base.sha256 ? undefined : "changed on the host since the copy";
}

/** The entry's bytes, for the apply dialog's diff (text only) and the write. */
export async function changeContent(change: Change): Promise<Buffer | undefined> {
  return change.entry?.content ? change.entry.content() : undefined;
}

/**
 * Writes one change to the host project and returns the new baseline entry (undefined: the file is
 * gone). Throws with a readable reason when it cannot be applied safely.
 */
export async function applyToHost(
  hostRoot: string,
  containerRoot: string,
  change: Change,
): Promise<BaselineEntry | undefined> {
  const realRoot = await realpath(hostRoot);
  const path = join(realRoot, change.path);
  // The deepest existing parent must really be inside the project (no folder swapped for a link out).
  let probe = dirname(path);
  for (;;) {
    const real = await realpath(probe).catch(() => undefined);
    if (real !== undefined) {
      if (!isWithin(real, realRoot)) throw new Error(`${dirname(change.path)} leads outside the project`);
      break;
    }
    probe = dirname(probe);
  }
  if (change.kind === "deleted") {
    const info = await lstat(path).catch(() => undefined);
    if (info && !info.isDirectory()) await rm(path);
    return undefined;
  }
  const entry = change.entry!;
  await mkdir(dirname(path), { recursive: true });
  const temp = join(
    dirname(path),
    `.${posix.basename(path).slice(0, 200)}.deep-acp-${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    if (entry.type === "link") {
      const target = entry.target!;
      const resolved = posix.resolve(posix.dirname(posix.join(containerRoot, change.path)), target);
      if (!isWithin(resolved, containerRoot)) throw new Error(`the link leads outside the project (${target})`);
      await symlink(target, temp);
      await rename(temp, path);
      return { type: "link", target };
    }
    const data = await entry.content!();
    const taken = Date.now();
    await writeFile(temp, data, { mode: entry.mode, flag: "wx" });
    await chmod(temp, entry.mode);
    await rename(temp, path);
    return {
      type: "file",
      mode: entry.mode,
      size: data.length,
      mtime: trustedTime(entry.mtime, taken),
      sha256: sha256(data),
    };
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}
