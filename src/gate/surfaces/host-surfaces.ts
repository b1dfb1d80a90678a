import { readdir, readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { isWithin } from "../../backends/paths/real-path.js";
import { probeGit, type GitFacts, type GitProbeOptions } from "./git-probe.js";
import { expandHome, gitProgramPaths, isHooksLike } from "./git-programs.js";
import { createProtectedPaths, type ProtectedPaths } from "./protected-paths.js";

// Which paths of a project decide what runs on the host: what git itself resolves (its git and
// common directory however `.git` redirects there, core.hooksPath, every config file it reads and
// every one it would include, scripts its config names, other worktrees' `.git` links), plus the
// editor, direnv, npm and hook-manager files the protected-path list names, each by its real path.
// One answer for the gate (a change to any of these always asks) and for the bubblewrap sandbox
// (it mounts exactly these read-only), and for container workspaces comparing a copy against the
// host. No project code runs to find out (see git-probe.ts).

export type HostExecutionSurface = {
  /** Absolute real path (a missing path: its nearest existing parent's real path plus the rest). */
  path: string;
  /** A folder: everything inside it counts too. */
  folder: boolean;
  exists: boolean;
  /** Whose: git's (a change drops remembered git commands too) or another tool's from the protected list. */
  kind: "git" | "protected";
  /** What it is, in the words a dialog uses: "git's config for this repository (it can name programs git runs)". */
  reason: string;
  /**
   * For a literal entry of the protected list: where it is written (`<root>/.vscode`). A path inside
   * counts only where the protected pattern matches it there (`deploy/*.sh` protects the scripts,
   * not the rest of deploy/, though the sandbox mounts all of deploy/ read-only).
   */
  lexical?: string;
};

export type HostExecutionSurfaces = {
  /** Real path of the project root asked about. */
  root: string;
  surfaces: readonly HostExecutionSurface[];
  /** `surfaces`' paths, existing ones first: what a sandbox mounts read-only (missing ones cannot be bound). */
  paths: readonly string[];
  /** What could not be determined (git missing, timed out, overflowed, an include refused). */
  problems: readonly string[];
  /**
   * Why the answer is incomplete ("surfaces unknown"), or undefined when it is complete. Unknown
   * fails closed: the whole git folder and every path git's config names count, and match() also
   * answers for every hooks-like path (hooks folders, files named as git hooks).
   */
  unknown?: string;
  /**
   * Why an absolute path (give both the path as asked for and its real path) decides what runs on
   * the host: a surface it is or is inside, or a protected pattern it matches below the root.
   */
  match(path: string): HostExecutionSurface | undefined;
  /** match() for a path relative to the root (a copy of the tree compared file by file). */
  matchRelative(relativePath: string): HostExecutionSurface | undefined;
  /** The files read to build this answer, for cache invalidation (see host-surface-cache.ts). */
  readonly inputs: readonly string[];
};

export type HostSurfaceOptions = {
  /** The protected-path list (config [protected]); its literal entries are resolved at the root and down to `cwd`. Default the built-in list. */
  protectedPaths?: ProtectedPaths;
  /** A folder below the root whose chain of folders also has its literal entries resolved. */
  cwd?: string;
  /** How git is asked (false: not at all, only the literal entries and a `.git` file's gitdir). */
  git?: false | Omit<GitProbeOptions, "untrusted">;
  /** For `~` in git config values. Default os.homedir(). */
  home?: string;
};

/** Literal entries that are git's (hook managers included): a change to them drops remembered git commands. */
const GIT_ENTRIES = new Set([
  ".git",
  ".husky",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  "lefthook.yaml",
]);

/** Why each literal entry matters, for dialogs; entries not listed get a generic reason. */
const KNOWN_REASONS: Record<string, string> = {
  ".git": "git's folder for this repository (its config and hooks run on the host)",
  ".deepagents": "deep-acp's project hooks, MCP servers and memory",
  ".mcp.json": "the project's MCP servers",
  ".claude": "Claude Code's project settings and hooks",
  ".vscode": "VS Code's project settings and tasks",
  ".idea": "JetBrains project settings and run configurations",
  ".zed": "Zed's project settings and tasks",
  ".helix": "Helix's project settings (language servers)",
  ".nvim.lua": "Neovim's project config",
  ".nvimrc": "Neovim's project config",
  ".exrc": "Vim's project config",
  ".dir-locals.el": "Emacs directory-local variables",
  ".dir-locals-2.el": "Emacs directory-local variables",
  ".envrc": "direnv's script (runs when you enter the folder)",
  ".npmrc": "npm's project settings (script-shell, node-options)",
  ".husky": "husky's git hooks",
  ".pre-commit-config.yaml": "the pre-commit framework's hooks",
  "lefthook.yml": "lefthook's git hooks",
  ".lefthook.yml": "lefthook's git hooks",
  "lefthook.yaml": "lefthook's git hooks",
};

/**
 * Which paths of the project at `root` decide what runs on the host. Works on any tree (a container
 * workspace's copy too): paths come back real and absolute for that tree; compare a copy's files
 * with matchRelative. Never throws: what cannot be determined is in `problems`.
 */
export async function resolveHostExecutionSurfaces(
  root: string,
  options: HostSurfaceOptions = {},
): Promise<HostExecutionSurfaces> {
  const realRoot = await realpath(resolve(root)).catch(() => resolve(root));
  const protectedPaths = options.protectedPaths ?? createProtectedPaths();
  const home = options.home ?? homedir();
  const found = createCollector();
  await addProtectedEntries(found, realRoot, options.cwd, protectedPaths);
  const facts: GitFacts =
    options.git === false
      ? { config: [], worktrees: [], problems: [] }
      : await probeGit(realRoot, { ...options.git, untrusted: [realRoot] });
  const unknown = facts.problems.length > 0 ? facts.problems.join("; ") : undefined;
  for (const file of facts.files ?? []) found.inputs.add(file);
  await addGitFolders(found, realRoot, facts, home);
  await addGitConfig(found, realRoot, facts, home, unknown !== undefined);

  const surfaces = [...found.surfaces.values()].sort((a, b) => Number(b.exists) - Number(a.exists));
  const match = matcher(surfaces, protectedPaths, realRoot, unknown);
  return {
    root: realRoot,
    surfaces,
    paths: surfaces.map((s) => s.path),
    problems: [...facts.problems],
    ...(unknown ? { unknown } : {}),
    match,
    matchRelative: (relativePath) => match(join(realRoot, relativePath)),
    inputs: [...found.inputs],
  };
}

type AddSurface = (path: string, folder: boolean, reason: string, lexical?: string) => Promise<void>;
/** The surfaces found so far (by real path) and the files whose change makes the answer stale. */
type Collector = { surfaces: Map<string, HostExecutionSurface>; inputs: Set<string>; add: AddSurface };

function createCollector(): Collector {
  const surfaces = new Map<string, HostExecutionSurface>();
  const add: AddSurface = async (path, folder, reason, lexical) => {
    const real = await realOfMaybeMissing(path);
    const kind = !lexical || GIT_ENTRIES.has(basename(lexical)) ? "git" : "protected";
    const known = surfaces.get(real.path);
    if (known) {
      // What git resolves covers all of it; a literal entry only what its pattern names.
      if (!lexical) delete known.lexical;
      if (kind === "git") known.kind = "git";
      known.folder ||= folder;
    } else
      surfaces.set(real.path, {
        path: real.path,
        folder,
        exists: real.exists,
        kind,
        reason,
        ...(lexical ? { lexical } : {}),
      });
  };
  return { surfaces, inputs: new Set(), add };
}

/**
 * Literal entries of the protected list, at the root and in each folder down to cwd, by real path
 * (`.vscode -> editor/` makes editor/ the surface) and by the path as written.
 */
async function addProtectedEntries(
  found: Collector,
  realRoot: string,
  cwd: string | undefined,
  protectedPaths: ProtectedPaths,
): Promise<void> {
  const folders = [realRoot];
  if (cwd) {
    const realCwd = await realpath(resolve(cwd)).catch(() => resolve(cwd));
    for (let dir = realCwd; dir !== realRoot && isWithin(dir, realRoot); dir = dirname(dir)) folders.push(dir);
  }
  for (const folder of folders) {
    for (const entry of protectedPaths.entries) {
      const path = join(folder, entry);
      found.inputs.add(path);
      const reason =
        entry === ".git" && (await stat(path).catch(() => undefined))?.isFile()
          ? "the .git file that tells git where its folder is"
          : (KNOWN_REASONS[entry] ?? `a protected path (${entry}): it can decide what runs on the host`);
      await found.add(path, true, reason, path);
    }
  }
}

/** Git's own folders (as git resolves them, or as the .git file names them) and the links inside them. */
async function addGitFolders(found: Collector, realRoot: string, facts: GitFacts, home: string): Promise<void> {
  const { add, inputs } = found;
  inputs.add(join(realRoot, ".git"));
  for (const file of userGitConfigFiles(home)) inputs.add(file);
  if (!facts.gitDir) await addLexicalGitDir(realRoot, add, inputs);
  if (facts.gitDir)
    await add(facts.gitDir, true, "git's folder for this repository (its config and hooks run on the host)");
  if (facts.commonDir && facts.commonDir !== facts.gitDir)
    await add(
      facts.commonDir,
      true,
      "git's common folder for this repository (config and hooks shared by its worktrees)",
    );
  for (const dir of new Set([facts.gitDir, facts.commonDir])) {
    if (!dir) continue;
    for (const name of ["config", "config.worktree", "commondir", "gitdir", "worktrees", "hooks"])
      inputs.add(join(dir, name));
    // A link inside git's folder (hooks -> ../tools/hooks) leads git elsewhere: its target counts too.
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      if (entry.isSymbolicLink())
        await add(
          join(dir, entry.name),
          true,
          `linked from git's folder (${entry.name}): git reads or runs what is there`,
        );
    }
  }
}

/**
 * Git's config files and includes, its hooks folders, the programs its config runs, and other
 * worktrees' links. `unknown`: every path-like value of the config counts too, whatever its key.
 */
async function addGitConfig(
  found: Collector,
  realRoot: string,
  facts: GitFacts,
  home: string,
  unknown: boolean,
): Promise<void> {
  const { add, inputs } = found;
  const worktree = facts.toplevel ?? realRoot;
  // Every value counts, not just the last: one behind `includeIf "onbranch:..."` is in force on that branch.
  const hooksPaths = new Set<string>();
  for (const entry of facts.config) {
    inputs.add(entry.origin);
    await add(
      entry.origin,
      false,
      `a git config file (${shown(entry.origin, realRoot)}): it can name programs git runs on the host`,
    );
    const key = entry.key.toLowerCase();
    if (key === "core.hookspath" && entry.value) hooksPaths.add(entry.value);
    if (key === "include.path" || (key.startsWith("includeif.") && key.endsWith(".path"))) {
      // Relative includes are relative to the including file; a missing one can be created later.
      const target = expandHome(entry.value, home, dirname(entry.origin));
      inputs.add(target);
      await add(target, false, `a git config file included by ${shown(entry.origin, realRoot)}`);
    }
  }
  // The default folder too: wherever a condition sets no hooks path, git runs what is there.
  if (facts.commonDir)
    await add(
      join(facts.commonDir, "hooks"),
      true,
      "git's hooks folder: its scripts run on the host at commits, checkouts and merges",
    );
  for (const hooksPath of hooksPaths) {
    // Relative to where hooks run: the work tree's top folder.
    await add(
      expandHome(hooksPath, home, worktree),
      true,
      "git's hooks folder (core.hooksPath): its scripts run on the host at commits, checkouts and merges",
    );
  }
  for (const program of gitProgramPaths(facts.config, worktree, home)) {
    if (isWithin(program.path, realRoot)) await add(program.path, false, `run by git on the host (${program.key})`);
  }
  if (unknown) {
    for (const named of gitProgramPaths(facts.config, worktree, home, "any key")) {
      if (isWithin(named.path, realRoot) && named.path !== realRoot)
        await add(named.path, true, `named by git's config (${named.key}), while git's config is not fully known`);
    }
    // The hooks-like folders that exist near the top, so a sandbox can bind them read-only too.
    for (const folder of await hooksLikeFolders(realRoot))
      await add(folder, true, "a hooks-like folder, while git's hooks path is unknown");
  }
  for (const tree of facts.worktrees) {
    const link = join(tree, ".git");
    inputs.add(link);
    await add(link, false, "a worktree's link to its git folder");
  }
}

/** Folders at the root and one level down named like hooks folders (`.githooks`, `tools/hooks`, `.husky`). */
async function hooksLikeFolders(root: string): Promise<string[]> {
  const folders = async (dir: string) =>
    (await readdir(dir, { withFileTypes: true }).catch(() => []))
      .filter((entry) => entry.isDirectory() && entry.name !== ".git" && entry.name !== "node_modules")
      .map((entry) => join(dir, entry.name));
  const top = await folders(root);
  const second = (await Promise.all(top.map(folders))).flat();
  // Named so: a file inside it is hooks-like by its folder alone.
  return [...top, ...second].filter((dir) => isHooksLike(`${basename(dir)}/x`));
}

/** The surface a path falls under: the most specific found (store/config, not store/), else a protected pattern. */
function matcher(
  surfaces: readonly HostExecutionSurface[],
  protectedPaths: ProtectedPaths,
  realRoot: string,
  unknown: string | undefined,
): (path: string) => HostExecutionSurface | undefined {
  const bySpecificity = [...surfaces].sort((a, b) => b.path.length - a.path.length);
  return (path) => {
    const absolute = resolve(path);
    const surface = bySpecificity.find((s) => {
      if (!(absolute === s.path || (s.folder && isWithin(absolute, s.path)))) return false;
      if (!s.lexical) return true;
      const written = join(s.lexical, relative(s.path, absolute));
      return protectedPaths.match(written, [realRoot]) !== undefined;
    });
    if (surface) return surface;
    const pattern = protectedPaths.match(absolute, [realRoot]);
    if (!pattern && unknown && isWithin(absolute, realRoot) && isHooksLike(relative(realRoot, absolute)))
      return {
        path: absolute,
        folder: false,
        exists: true,
        kind: "git",
        reason: `a hooks-like path, and git's hooks path is unknown (${unknown})`,
      };
    return pattern
      ? {
          path: absolute,
          folder: false,
          exists: true,
          kind: GIT_ENTRIES.has(literalHead(pattern)) ? "git" : "protected",
          reason:
            KNOWN_REASONS[literalHead(pattern)] ?? `a protected path (${pattern}): it can decide what runs on the host`,
        }
      : undefined;
  };
}

/** Where a path leads if it exists; else its nearest existing parent's real path plus the rest. */
async function realOfMaybeMissing(path: string): Promise<{ path: string; exists: boolean }> {
  const absolute = resolve(path);
  const real = await realpath(absolute).catch(() => undefined);
  if (real) return { path: real, exists: true };
  const parent = dirname(absolute);
  if (parent === absolute) return { path: absolute, exists: false };
  return { path: join((await realOfMaybeMissing(parent)).path, basename(absolute)), exists: false };
}

/** Without git's answer: a `.git` file's `gitdir:` (and that folder's `commondir`) still count. */
async function addLexicalGitDir(
  root: string,
  add: (path: string, folder: boolean, reason: string) => Promise<void>,
  inputs: Set<string>,
): Promise<void> {
  const text = await readFile(join(root, ".git"), "utf8").catch(() => undefined);
  const gitdir = text?.match(/^gitdir:\s*(.+?)\s*$/m)?.[1];
  if (!gitdir) return;
  const dir = resolve(root, gitdir);
  await add(dir, true, "git's folder for this repository (named by the .git file)");
  inputs.add(join(dir, "commondir"));
  const common = (await readFile(join(dir, "commondir"), "utf8").catch(() => ""))?.trim();
  if (common) await add(resolve(dir, common), true, "git's common folder for this repository");
}

function userGitConfigFiles(home: string): string[] {
  const xdg = process.env.XDG_CONFIG_HOME || join(home, ".config");
  return [join(home, ".gitconfig"), join(xdg, "git", "config"), "/etc/gitconfig"];
}

function shown(path: string, root: string): string {
  return isWithin(path, root) ? relative(root, path) || "." : path;
}

function literalHead(pattern: string): string {
  return pattern.split("/").find((segment) => segment && segment !== "**") ?? pattern;
}
