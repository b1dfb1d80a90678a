import { posix } from "node:path";
import {
  hostRootOf,
  readHostEntry,
  removeHostEntry,
  writeHostFile,
  writeHostLink,
  type HostEntry,
} from "../paths/host-apply.js";
import { isWithin } from "../paths/real-path.js";
import type { ContainerLink } from "./container-link.js";
import { readArchive } from "./container-files.js";
import type { Docker } from "./engine.js";
import { sha256, trustedTime, underPrefix, type Baseline, type BaselineEntry } from "./project-archive.js";

// Copy mode's way back: what differs in the container from the baseline (the project as it was
// copied in), and writing a change to the host project. A host file that no longer matches its
// baseline was changed on the host since the copy: a conflict, named and never overwritten (checked
// before the dialog and again right before each write). Writes go under the real project root without
// following any host link (host-apply.ts) and replace files atomically; links are applied only when
// they lead inside the project.

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

export type Change = {
  path: string;
  kind: ChangeKind;
  type: "file" | "link";
  entry?: TreeEntry;
  /** What the dialog showed and the write writes (takeSnapshot). */
  snapshot?: { sha256: string; size: number; data?: Buffer };
};

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
  const host = await readHostEntry(await hostRootOf(hostRoot), change.path);
  return conflictWith(host, change, base);
}

/** The same, for what was just read of the host (readHostEntry: no link followed). */
export async function conflictWith(host: HostEntry, change: Change, base: BaselineEntry | undefined) {
  if (host.kind === "behind-link") return `${host.via} is a link on the host (not followed)`;
  if (!base) {
    if (host.kind === "missing") return undefined;
    if (host.kind === "file" && change.type === "file" && host.sha256 === (await snapshotSha(change))) return undefined;
    return "created on the host since the copy";
  }
  if (host.kind === "missing") return "deleted on the host since the copy";
  if (base.type === "link")
    return host.kind === "link" && host.target === base.target ? undefined : "changed on the host since the copy";
  return host.kind === "file" && host.sha256 === base.sha256 ? undefined : "changed on the host since the copy";
}

/** The sha256 of what will be written for `change` (its snapshot when taken). */
async function snapshotSha(change: Change): Promise<string | undefined> {
  if (change.snapshot) return change.snapshot.sha256;
  const data = await changeContent(change);
  return data ? sha256(data) : undefined;
}

/** The entry's bytes as the container has them now (the dialog and the write use the snapshot instead). */
export async function changeContent(change: Change): Promise<Buffer | undefined> {
  return change.entry?.content ? change.entry.content() : undefined;
}

/**
 * Takes the content of every changed file once, for the dialog and the write: kept in memory up to
 * `keepBytes` in all, past that only its sha256, and the write reads it again and refuses another
 * content. Taken while the container's processes are frozen (see freezeContainer).
 */
export async function takeSnapshot(changes: Change[], keepBytes: number): Promise<void> {
  let kept = 0;
  for (const change of changes) {
    if (change.type !== "file" || change.kind === "deleted") continue;
    const data = (await changeContent(change)) ?? Buffer.alloc(0);
    const keep = kept + data.length <= keepBytes;
    if (keep) kept += data.length;
    change.snapshot = { sha256: sha256(data), size: data.length, ...(keep ? { data } : {}) };
  }
}

/** The bytes to write: the snapshot's, or read again and checked against the snapshot's sha256. */
async function snapshotData(change: Change): Promise<Buffer> {
  const snapshot = change.snapshot;
  if (snapshot?.data) return snapshot.data;
  const data = (await changeContent(change)) ?? Buffer.alloc(0);
  if (snapshot && sha256(data) !== snapshot.sha256)
    throw new Error("changed in the container after the dialog was shown: not written");
  return data;
}

/**
 * Writes one change to the host project and returns the new baseline entry (undefined: the file is
 * gone). Throws with a readable reason when it cannot be applied safely. No host link is followed
 * (host-apply.ts) and the mode loses its setuid, setgid and sticky bits.
 */
export async function applyToHost(
  hostRoot: string,
  containerRoot: string,
  change: Change,
): Promise<BaselineEntry | undefined> {
  const realRoot = await hostRootOf(hostRoot);
  if (change.kind === "deleted") {
    await removeHostEntry(realRoot, change.path);
    return undefined;
  }
  const entry = change.entry!;
  if (entry.type === "link") {
    const target = entry.target!;
    const resolved = posix.resolve(posix.dirname(posix.join(containerRoot, change.path)), target);
    if (!isWithin(resolved, containerRoot)) throw new Error(`the link leads outside the project (${target})`);
    await writeHostLink(realRoot, change.path, target);
    return { type: "link", target };
  }
  const data = await snapshotData(change);
  const taken = Date.now();
  await writeHostFile(realRoot, change.path, data, entry.mode);
  return {
    type: "file",
    // The container's mode, so an unchanged file is not listed again for the bits the host did not get.
    mode: entry.mode,
    size: data.length,
    mtime: trustedTime(entry.mtime, taken),
    sha256: sha256(data),
  };
}

export type Frozen = {
  processes: number;
  ms: number;
  /** Why nothing was frozen (a container whose helper predates the freeze): the snapshot still is what is written. */
  notFrozen?: string;
  thaw(): Promise<void>;
};

/**
 * Stops every process in the container but the helper (SIGSTOP, helper-script.ts) until `thaw`:
 * nothing inside can change the project between the snapshot, the dialog and the write. A helper
 * that predates the operation answers "unknown operation": the container goes on running, and the
 * caller says so (the write is still the snapshot's bytes, and a file too large to keep is re-read
 * and checked). Any other refusal throws: nothing is applied.
 */
export async function freezeContainer(link: ContainerLink): Promise<Frozen> {
  const channel = await link.channel();
  const started = performance.now();
  let count: Buffer | undefined;
  try {
    [count] = await channel.request("freeze");
  } catch (error) {
    if (!/unknown operation/.test((error as Error).message)) throw error;
    const notFrozen = "this container's helper predates freezing: its processes kept running during /apply";
    return { processes: 0, ms: performance.now() - started, notFrozen, thaw: async () => undefined };
  }
  const ms = performance.now() - started;
  let thawed = false;
  return {
    processes: Number(count?.toString() ?? 0),
    ms,
    async thaw() {
      if (thawed) return;
      thawed = true;
      // A lost channel stopped the container with its processes: nothing is left to thaw.
      await channel.request("thaw").catch(() => undefined);
    },
  };
}
