import { existsSync, lstatSync, readlinkSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { isWithin, isWithinAny } from "../../util/path-within.js";

// The bubblewrap command line. The sandbox's "/" is an empty tmpfs, remounted read-only once every
// mount point exists: bind targets can then be created anywhere (binding onto a new path under a
// read-only "/" fails with "Can't mkdir"), and nothing of the host shows except what is listed here:
// system directories read-only, the session roots (and configured writable paths) read-write at
// their own paths, a fresh /tmp, /proc, /dev, and an empty scratch tmpfs at $HOME so tools that
// write caches work without seeing the user's real home.
//
// Inside the writable roots, what decides what runs *outside* the sandbox stays read-only: the
// paths the gate resolves as host execution surfaces (`hostSurfaces`: git's folder however `.git`
// redirects there, its hooks folder, every config file it reads or includes, and the protected
// entries by their real paths), and the literal protected entries (`protectedEntries`: `.git`,
// `.deepagents`, `.envrc`, `.vscode`, `.mcp.json`, ... and `[protected]` config) in each root and in
// every folder from the root down to the working directory (a nested repository's `.git` when the
// command runs in it). The folders on the way to them are bound over themselves (writable), so a
// command cannot move a read-only one away by renaming its parent; what a mount cannot hold (a link
// replaced by a folder, a path that did not exist) is checked and put back after the command
// (backends/paths/held-*.ts). Not covered, the gate still asks for them: a nested one elsewhere in
// the tree (finding those would walk the whole tree on every command). When a
// root contains deep-acp's own folder (~/.deepagents: user hooks, MCP config), that folder is
// read-only too and its `.state` (stored API keys, OAuth tokens, approvals) is replaced by an empty
// tmpfs, so a sandboxed command never reads the stored key.

/** Entries of each root mounted read-only inside the sandbox whatever `protectedEntries` says. */
export const PROTECTED_ROOT_ENTRIES = [".git", ".deepagents"] as const;

/** Host directories needed to run programs, mounted read-only when present. Symlinks (/bin -> usr/bin) are recreated. */
export const DEFAULT_SYSTEM_PATHS = [
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/etc",
  "/opt",
  "/nix",
  "/gnu",
  "/run/current-system",
];

export type BwrapMounts = {
  /** Read-write, same path inside. */
  roots: readonly string[];
  readOnlyPaths: readonly string[];
  writablePaths: readonly string[];
  network: boolean;
  /** Replaced by an empty tmpfs; undefined to skip. */
  homeDir: string | undefined;
  /** Paths relative to a root (the gate's protected paths) bound read-only where they exist; added to PROTECTED_ROOT_ENTRIES. */
  protectedEntries?: readonly string[];
  /**
   * Absolute real paths that decide what runs on the host (the gate's host execution surfaces: git's
   * folders however `.git` redirects, core.hooksPath, config includes, ...), bound read-only where
   * they exist inside a writable mount.
   */
  hostSurfaces?: readonly string[];
  /**
   * Existing folders on the way to those (held-record.ts anchorFolders): each bound over itself
   * writable, so it is a mount point a command cannot rename or remove while it runs.
   */
  anchors?: readonly string[];
  /** deep-acp's own folder (default `<homeDir>/.deepagents`): read-only, `.state` hidden, where a root reaches it. */
  agentDir?: string;
  systemPaths: readonly string[];
};

type Mount = { dest: string; args: string[] };

const depth = (path: string) => path.split("/").filter(Boolean).length;

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** Everything before `--` (the command follows it). Paths that do not exist are skipped. */
export function buildBwrapArgs(mounts: BwrapMounts, cwd: string): string[] {
  const args = ["--die-with-parent", "--new-session", "--unshare-all"];
  if (mounts.network) args.push("--share-net");
  args.push("--tmpfs", "/");

  const system = mounts.systemPaths.filter((p) => existsSync(p) || isSymlink(p));
  for (const path of system) {
    if (isSymlink(path)) args.push("--symlink", readlinkSync(path), path);
    else args.push("--ro-bind", path, path);
  }
  args.push("--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp");

  const nested: Mount[] = [];
  if (mounts.homeDir && mounts.homeDir !== "/")
    nested.push({ dest: resolve(mounts.homeDir), args: ["--tmpfs", resolve(mounts.homeDir)] });
  if (mounts.network) {
    // resolv.conf is often a symlink into /run, which is not mounted.
    const resolv = realOrUndefined("/etc/resolv.conf");
    if (resolv && !isWithinAny(resolv, system)) nested.push({ dest: resolv, args: ["--ro-bind", resolv, resolv] });
  }
  for (const path of mounts.readOnlyPaths) {
    const real = realOrUndefined(path);
    if (real) nested.push({ dest: resolve(path), args: ["--ro-bind", real, resolve(path)] });
  }
  for (const path of [...mounts.writablePaths, ...mounts.roots]) {
    const real = realOrUndefined(path);
    if (real) nested.push({ dest: resolve(path), args: ["--bind", real, resolve(path)] });
  }
  nested.push(...protectedMounts(mounts, cwd));
  // Parents before children, so a root under $HOME or /tmp is not hidden by the tmpfs over them.
  nested.sort((a, b) => depth(a.dest) - depth(b.dest));
  for (const mount of nested) args.push(...mount.args);

  args.push("--remount-ro", "/", "--chdir", cwd);
  return args;
}

/** Read-only binds over the protected entries of each writable root, and the hidden agent state. */
function protectedMounts(mounts: BwrapMounts, cwd: string): Mount[] {
  const writable = [...mounts.writablePaths, ...mounts.roots].map((p) => resolve(p));
  const entries = [...new Set([...PROTECTED_ROOT_ENTRIES, ...(mounts.protectedEntries ?? [])])];
  const out = new Map<string, Mount>();
  const readOnly = (path: string) => {
    const real = realOrUndefined(path);
    if (!real) return;
    // A link is bound at its target, and only where the target is inside a writable mount (elsewhere it is not visible anyway).
    const dest = isSymlink(path) ? real : resolve(path);
    if (!writable.some((root) => isWithin(dest, root))) return;
    out.set(dest, { dest, args: ["--ro-bind", real, dest] });
  };
  for (const dir of foldersToGuard(writable, resolve(cwd))) for (const entry of entries) readOnly(join(dir, entry));
  for (const path of mounts.hostSurfaces ?? []) readOnly(path);
  for (const path of mounts.anchors ?? []) {
    const real = realOrUndefined(path);
    if (!real || out.has(real) || isSymlink(path) || writable.includes(real)) continue;
    if (writable.some((root) => isWithin(real, root))) out.set(real, { dest: real, args: ["--bind", real, real] });
  }
  const agentDir = mounts.agentDir ?? (mounts.homeDir ? join(resolve(mounts.homeDir), ".deepagents") : undefined);
  if (agentDir) {
    const real = realOrUndefined(agentDir);
    if (real && writable.some((root) => isWithin(real, root) || isWithin(resolve(agentDir), root))) {
      readOnly(agentDir);
      const state = join(real, ".state");
      if (existsSync(state)) out.set(state, { dest: state, args: ["--tmpfs", state] });
    }
  }
  return [...out.values()];
}

/** Each writable root, and every folder from the root holding `cwd` down to `cwd`. */
function foldersToGuard(writable: readonly string[], cwd: string): string[] {
  const folders = new Set(writable);
  for (const root of writable) {
    if (!isWithin(cwd, root)) continue;
    for (let dir = cwd; dir !== root && isWithin(dir, root); dir = dirname(dir)) folders.add(dir);
  }
  return [...folders];
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
