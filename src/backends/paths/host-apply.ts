import { constants } from "node:fs";
import { lstat, mkdir, open, readlink, realpath, rename, rm, symlink } from "node:fs/promises";
import { randomBytes, createHash } from "node:crypto";
import { join } from "node:path";

// Reading and writing the host project for /apply without ever following a link on the host: not the
// file itself (opened with O_NOFOLLOW) and not any folder on the way from the project root (each
// parent is looked at with lstat; a link there is refused). The dialog's "before" side and the
// conflict check read through here, so a host link to a file outside the project never shows that
// file's content; the write goes through here, so it lands at exactly the path that was shown.
// Modes lose their setuid, setgid and sticky bits: a container's chmod must not make a set-user-ID
// program on the host.

export type HostEntry =
  | { kind: "missing" }
  | { kind: "file"; size: number; mode: number; sha256: string; data?: Buffer }
  | { kind: "link"; target: string }
  | { kind: "other" }
  /** A folder on the way is a link (or not a folder): the entry is not looked at. */
  | { kind: "behind-link"; via: string };

/** The bits /apply never sets on the host. */
export const SPECIAL_BITS = 0o7000;

/** "setuid", "setgid", "sticky" for the special bits of `mode`. */
export function specialBitNames(mode: number): string[] {
  return [
    ...(mode & 0o4000 ? ["setuid"] : []),
    ...(mode & 0o2000 ? ["setgid"] : []),
    ...(mode & 0o1000 ? ["sticky"] : []),
  ];
}

export const hostMode = (mode: number) => mode & 0o777;

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

/** The real project root; every path below is relative to it. */
export const hostRootOf = (root: string) => realpath(root);

/** The first folder on the way to `rel` that is a link or not a folder, or undefined; missing ones end the walk. */
async function blockedParent(realRoot: string, rel: string): Promise<string | undefined> {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.some((p) => p === "..")) return rel;
  let path = realRoot;
  for (let i = 0; i < parts.length - 1; i++) {
    path = join(path, parts[i]!);
    const info = await lstat(path).catch(() => undefined);
    if (!info) return undefined;
    if (!info.isDirectory()) return parts.slice(0, i + 1).join("/");
  }
  return undefined;
}

/** What is at `rel` on the host, read without following links; file bytes kept up to `keepBytes`. */
export async function readHostEntry(realRoot: string, rel: string, keepBytes = 0): Promise<HostEntry> {
  const via = await blockedParent(realRoot, rel);
  if (via !== undefined) return { kind: "behind-link", via };
  const path = join(realRoot, rel);
  const info = await lstat(path).catch(() => undefined);
  if (!info) return { kind: "missing" };
  if (info.isSymbolicLink()) return { kind: "link", target: await readlink(path) };
  if (!info.isFile()) return { kind: "other" };
  // O_NONBLOCK: a FIFO put there since the lstat does not stall; O_NOFOLLOW: nor does a link.
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    () => undefined,
  );
  if (!handle) return { kind: "other" };
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) return { kind: "other" };
    const data = await handle.readFile();
    return {
      kind: "file",
      size: data.length,
      mode: opened.mode & 0o7777,
      sha256: sha256(data),
      ...(data.length <= keepBytes ? { data } : {}),
    };
  } finally {
    await handle.close();
  }
}

/** Creates the missing folders on the way to `rel`, refusing a link or a non-folder anywhere on it. */
async function parentsFor(realRoot: string, rel: string): Promise<string> {
  const parts = rel.split("/").filter((p) => p !== "" && p !== ".");
  if (parts.length === 0 || parts.some((p) => p === "..")) throw new Error(`${rel} is not a path in the project`);
  let path = realRoot;
  for (let i = 0; i < parts.length - 1; i++) {
    path = join(path, parts[i]!);
    let info = await lstat(path).catch(() => undefined);
    if (!info) {
      await mkdir(path).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "EEXIST") throw error;
      });
      info = await lstat(path);
    }
    if (!info.isDirectory())
      throw new Error(
        `${parts.slice(0, i + 1).join("/")} is ${info.isSymbolicLink() ? "a link" : "not a folder"} on the host: not followed`,
      );
  }
  return join(realRoot, rel);
}

const tempBeside = (path: string) => `${path.slice(0, 3900)}.deep-acp-${randomBytes(4).toString("hex")}.tmp`;

/** Writes `data` at `rel` (a new file renamed over the old entry, a link replaced, not followed). */
export async function writeHostFile(realRoot: string, rel: string, data: Buffer, mode: number): Promise<void> {
  const path = await parentsFor(realRoot, rel);
  const temp = tempBeside(path);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
  const handle = await open(temp, flags, hostMode(mode));
  try {
    await handle.writeFile(data);
    await handle.chmod(hostMode(mode)); // the umask narrowed the mode open() set
    await handle.close();
    await rename(temp, path);
  } catch (error) {
    await handle.close().catch(() => undefined);
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Makes `rel` a link to `target` (the caller checked where it leads). */
export async function writeHostLink(realRoot: string, rel: string, target: string): Promise<void> {
  const path = await parentsFor(realRoot, rel);
  const temp = tempBeside(path);
  await symlink(target, temp);
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** Removes the entry at `rel` (a link itself, never what it points to); a folder stays. */
export async function removeHostEntry(realRoot: string, rel: string): Promise<void> {
  const via = await blockedParent(realRoot, rel);
  if (via !== undefined) throw new Error(`${via} is a link on the host: not followed`);
  const path = join(realRoot, rel);
  const info = await lstat(path).catch(() => undefined);
  if (info && !info.isDirectory()) await rm(path);
}
