import * as fsp from "node:fs/promises";
import { constants, type Dirent, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { approvedRealPath, type ApprovedTargets } from "./approved-targets.js";
import { FsOpError, shownPath, toFsOpError } from "../files/fs-errors.js";
import { resolveRealTarget } from "./real-path.js";
import { isWithin, relativeWithin } from "../../util/path-within.js";

// Path resolution for the filesystem backend.
//
// Real mode: the session is about the user's own files, so absolute paths are used as they are and
// relative ones resolve against the root. Whatever a path leads to is opened by its real path, with
// the last component O_NOFOLLOW and the opened descriptor's path checked against it; inside a tool
// call that real path must be the one the gate decided on (options.approved, see backends/approved-targets.ts), so a link
// swapped after the decision is refused instead of followed. Virtual mode confines everything to the root: callers see
// "/"-rooted paths, `..` and `~` are refused, and every host path is checked after symlink
// resolution (realpath) and again on the opened descriptor (/proc/self/fd), with the last component
// opened O_NOFOLLOW so a symlink swapped in between check and open is refused.

/** The node:fs/promises functions the backend uses; injectable so tests can interpose on them. */
export type FsOps = {
  realpath(path: string): Promise<string>;
  open(path: string, flags: number, mode?: number): Promise<FileHandle>;
  lstat(path: string): Promise<Stats>;
  stat(path: string): Promise<Stats>;
  readdir(path: string, options: { withFileTypes: true }): Promise<Dirent[]>;
  mkdir(path: string, options: { recursive: true; mode?: number }): Promise<string | undefined>;
  rm(path: string, options: { recursive: boolean; force: boolean }): Promise<void>;
  readlink(path: string): Promise<string>;
};

export const nodeFsOps: FsOps = {
  realpath: (p) => fsp.realpath(p),
  open: (p, flags, mode) => fsp.open(p, flags, mode),
  lstat: (p) => fsp.lstat(p),
  stat: (p) => fsp.stat(p),
  readdir: (p, o) => fsp.readdir(p, o),
  mkdir: (p, o) => fsp.mkdir(p, o),
  rm: (p, o) => fsp.rm(p, o),
  readlink: (p) => fsp.readlink(p),
};

const MAX_NAME_BYTES = 255;
const MAX_PATH_BYTES = 4095;

/** Rejects input no file system would accept, before it reaches a syscall. */
export function checkPathText(path: string): void {
  if (typeof path !== "string" || path.length === 0) throw new FsOpError("path must not be empty", "invalid_path");
  if (path.includes("\0"))
    throw new FsOpError(`path contains a NUL byte: '${shownPath(path.replace(/\0/g, "\\0"))}'`, "invalid_path");
  if (Buffer.byteLength(path) > MAX_PATH_BYTES)
    throw new FsOpError(`Path too long: '${shownPath(path)}'`, "invalid_path");
  for (const segment of path.split("/")) {
    if (Buffer.byteLength(segment) > MAX_NAME_BYTES)
      throw new FsOpError(`File name too long: '${shownPath(segment)}'`, "invalid_path");
  }
}

export type ResolvedPath = {
  /** Host path (not symlink-resolved). */
  full: string;
  /** Path as the caller sees it: virtual "/"-rooted in virtual mode, the host path otherwise. */
  display: string;
};

export type PathGuardOptions = {
  rootDir: string;
  virtualMode: boolean;
  /** Create the root (0700) on first use instead of reporting it missing. */
  createRoot: boolean;
  fs: FsOps;
  /** Inside a gated call: the real paths the gate decided on, the only ones this guard opens. */
  approved?: ApprovedTargets;
};

export type PathGuard = ReturnType<typeof createPathGuard>;

export function createPathGuard(options: PathGuardOptions) {
  const { virtualMode, fs } = options;
  const rootDir = resolve(options.rootDir);
  let realRootCache: string | undefined;
  let procFdAvailable: boolean | undefined;

  async function realRoot(): Promise<string> {
    if (realRootCache) return realRootCache;
    try {
      realRootCache = await fs.realpath(rootDir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || !options.createRoot) {
        throw new FsOpError(
          `Root directory '${rootDir}' is not accessible: ${toFsOpError(error, rootDir).message}`,
          "file_not_found",
        );
      }
      await fs.mkdir(rootDir, { recursive: true, mode: 0o700 });
      realRootCache = await fs.realpath(rootDir);
    }
    return realRootCache;
  }

  function resolvePath(path: string): ResolvedPath {
    checkPathText(path);
    if (!virtualMode) {
      const full = isAbsolute(path) ? resolve(path) : resolve(rootDir, path);
      return { full, display: full };
    }
    const segments = path.split("/").filter((s) => s.length > 0 && s !== ".");
    if (segments.includes("..") || path.startsWith("~") || segments.includes("~")) {
      throw new FsOpError(`Path traversal not allowed: '${shownPath(path)}'`, "invalid_path");
    }
    return { full: join(rootDir, ...segments), display: "/" + segments.join("/") };
  }

  /** Caller-facing path for a host path found under `base` (shown under the path the caller named). */
  function displayOf(hostPath: string, base: { host: string; display: string }): string {
    const inside = relativeWithin(base.host, hostPath);
    if (!virtualMode && inside === undefined) return hostPath;
    const rel = inside ?? relative(base.host, hostPath);
    if (rel === "") return base.display;
    return base.display === "/" ? `/${rel}` : `${base.display}/${rel}`;
  }

  function outside(display: string): FsOpError {
    return new FsOpError(`Path: ${shownPath(display)} outside root directory: ${rootDir}`, "permission_denied");
  }

  /** The real path of an existing file, checked to be inside the root in virtual mode. */
  async function existing(target: ResolvedPath): Promise<string> {
    if (!virtualMode) {
      const real = await fs.realpath(target.full).catch((error: unknown) => {
        throw toFsOpError(error, target.display);
      });
      return asApproved(target, real);
    }
    const root = await realRoot();
    let real: string;
    try {
      real = await fs.realpath(target.full);
    } catch (error) {
      throw toFsOpError(error, target.display);
    }
    if (!isWithin(real, root)) throw outside(target.display);
    return real;
  }

  /**
   * Where a write to `target` lands: the real path when it exists, else the real deepest existing
   * ancestor plus the missing components. Virtual mode refuses anything resolving outside the root.
   */
  async function forCreate(target: ResolvedPath): Promise<string> {
    if (!virtualMode) {
      const resolved = await resolveRealTarget(target.full, fs);
      if (resolved.unresolved)
        throw new FsOpError(`cannot resolve '${shownPath(target.display)}' (${resolved.unresolved})`, "invalid_path");
      return asApproved(target, resolved.real);
    }
    const root = await realRoot();
    const missing: string[] = [];
    let probe = target.full;
    for (;;) {
      try {
        const real = await fs.realpath(probe);
        if (!isWithin(real, root)) throw outside(target.display);
        return missing.length === 0 ? real : join(real, ...missing.reverse());
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT") throw toFsOpError(error, target.display);
        // A dangling symlink is "missing" for realpath; following it later could leave the root.
        const link = await fs.lstat(probe).catch(() => undefined);
        if (link?.isSymbolicLink())
          throw new FsOpError(`Symlinks are not allowed: '${shownPath(target.display)}'`, "invalid_path");
        const parent = dirname(probe);
        if (parent === probe) throw toFsOpError(error, target.display);
        missing.push(probe.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
        probe = parent;
      }
    }
  }

  /** In a gated call, the real path must still be the one the gate decided on. */
  function asApproved(target: ResolvedPath, real: string): string {
    const approved = approvedRealPath(options.approved, target.full);
    if (approved !== undefined && approved !== real) {
      throw new FsOpError(
        `'${shownPath(target.display)}' changed after it was approved: it now leads to ${real}, not ${approved}; not opened`,
        "permission_denied",
      );
    }
    return real;
  }

  /** Opens a checked real path: a final symlink is refused and the descriptor is checked to be that path. */
  async function openChecked(real: string, flags: number, display: string, mode?: number): Promise<FileHandle> {
    const handle = await fs.open(real, flags | constants.O_NOFOLLOW, mode).catch((error: unknown) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ELOOP" && !virtualMode)
        throw new FsOpError(
          `'${shownPath(display)}' was replaced by a link after it was checked; not opened`,
          "permission_denied",
        );
      throw toFsOpError(error, display);
    });
    try {
      await verifyDescriptor(handle, display, real);
    } catch (error) {
      await handle.close();
      throw error;
    }
    return handle;
  }

  async function verifyDescriptor(handle: FileHandle, display: string, real: string): Promise<void> {
    if (procFdAvailable === false) return;
    let actual: string;
    try {
      actual = await fs.readlink(`/proc/self/fd/${handle.fd}`);
      procFdAvailable = true;
    } catch {
      procFdAvailable = false;
      return;
    }
    if (virtualMode) {
      if (!isWithin(actual, await realRoot())) throw outside(display);
    } else if (actual !== real) {
      // A folder on the way was swapped for a link between the check and the open.
      throw new FsOpError(
        `'${shownPath(display)}' opened ${actual}, not the checked ${real}; refused`,
        "permission_denied",
      );
    }
  }

  return {
    rootDir,
    virtualMode,
    realRoot,
    resolve: resolvePath,
    displayOf,
    existing,
    forCreate,
    openChecked,
    checkApproved: asApproved,
    outside,
  };
}
