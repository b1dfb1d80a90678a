import { execFile } from "node:child_process";
import { accessSync, constants, existsSync, realpathSync, statSync } from "node:fs";
import { readFile, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { isWithin } from "../../backends/paths/real-path.js";
import { DEFAULT_SCAN_BYTES, scanGitConfig, type GitConfigEntry } from "./git-config-scan.js";

// What git itself resolves for a folder: its git directory and common directory (a `gitdir:` file,
// a linked `.git`, a worktree), the work tree, every config entry with the file it came from
// (includes followed), and the worktrees. Asked of git, because any list of spellings we keep
// misses the next one; and asked so that no project code can run:
// - only `rev-parse`, `config --list` and `worktree list`, which read files and run nothing (no
//   index refresh, so no core.fsmonitor; no hooks, aliases, pagers or helpers); core.fsmonitor is
//   forced off on the command line anyway;
// - the git binary is found on PATH in absolute folders outside the project (a `./bin/git` or a
//   relative PATH entry is never run);
// - with an environment of PATH, HOME, XDG_CONFIG_HOME and LANG=C only: no GIT_DIR, GIT_CONFIG_*,
//   GIT_EXEC_PATH or GIT_TRACE from the agent's environment steers it;
// - `safe.directory=*` on the command line (a protected scope), so a repository owned by someone
//   else is still described (reading its config runs nothing);
// - each call with a timeout (3 s), an output cap (32 MB) and stdin closed;
// - and only after git-config-scan.ts has read the same config files itself: an include git would
//   block on or fail at (a FIFO, a device, `/dev/stdin`, an unreadable file) means git is not
//   asked at all, and includes git skips for now (`onbranch:`, `hasconfig:`, `gitdir:`) still count.
// Anything short of a full answer (git missing, a failure, a timeout, an overflow, such an include)
// is a problem: the caller treats the surfaces as unknown and fails closed (host-surfaces.ts).

export type { GitConfigEntry };

export type GitFacts = {
  /** Absolute, as git reports them; undefined when `dir` is not in a repository. */
  gitDir?: string;
  commonDir?: string;
  /** The work tree's top folder (undefined for a bare repository). */
  toplevel?: string;
  /** Entries read from files, in git's order (later ones win); command-line entries left out. */
  config: GitConfigEntry[];
  /** Paths of every worktree of the repository (the main one included). */
  worktrees: string[];
  /** Why (part of) the answer is missing: git not found, timed out, overflowed, an include refused. Non-empty: unknown. */
  problems: string[];
  /** The config files read or named as includes (for the cache's staleness check). */
  files?: string[];
};

export type GitProbeOptions = {
  /** Folders whose programs are never run as git (the project roots). */
  untrusted: readonly string[];
  /** Default process.env (only PATH, HOME and XDG_CONFIG_HOME are read). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default: found on PATH, outside `untrusted`. */
  gitPath?: string;
  /** Per call. Default 3000. */
  timeoutMs?: number;
  /** Output cap per git call, and read cap of the config scan. Default 32 MB. */
  maxBytes?: number;
  /** For `~` in include paths. Default env.HOME, else os.homedir(). */
  home?: string;
};

/** The folders git itself would use for `dir`; never throws (problems say what is missing). */
export async function probeGit(dir: string, options: GitProbeOptions): Promise<GitFacts> {
  const env = options.env ?? process.env;
  const home = options.home ?? env.HOME ?? homedir();
  const maxBytes = options.maxBytes ?? DEFAULT_SCAN_BYTES;
  const facts: GitFacts = { config: [], worktrees: [], problems: [] };
  // Our own reading first: the folders `.git` leads to and every file their config includes.
  const lexical = await lexicalGitDirs(dir);
  const scan = await scanGitConfig(configFiles(lexical, env, home), { home, maxBytes });
  const fromScan = () => {
    if (lexical.gitDir) facts.gitDir = lexical.gitDir;
    if (lexical.commonDir) facts.commonDir = lexical.commonDir;
    facts.config = scan.entries;
    facts.files = scan.files;
  };
  if (lexical.hazard || scan.unknown.length > 0) {
    // Git reads the same files: it would block on the include or fail. Not asked at all.
    fromScan();
    if (lexical.hazard) facts.problems.push(`git's folder could not be read: ${lexical.hazard}`);
    facts.problems.push(...scan.unknown.map((why) => `git's config could not be read in full: ${why}`));
    return facts;
  }
  const git = options.gitPath ?? findTrustedExecutable("git", env.PATH, options.untrusted);
  if (!git) {
    fromScan();
    facts.problems.push("git was not found on PATH outside the project");
    return facts;
  }
  const run = (args: string[]) => runGit(git, dir, args, gitEnvironment(env), options.timeoutMs ?? 3000, maxBytes);
  const [revParse, config, worktrees] = await Promise.all([
    run(["rev-parse", "--path-format=absolute", "--git-dir", "--git-common-dir", "--show-toplevel"]),
    run(["config", "--list", "--show-origin", "--includes", "-z"]),
    run(["worktree", "list", "--porcelain", "-z"]),
  ]);
  // rev-parse prints what it knows before failing on --show-toplevel (a bare repository, a .git folder).
  const [gitDir, commonDir, toplevel] = revParse.stdout.split("\n");
  if (gitDir) facts.gitDir = gitDir;
  if (commonDir) facts.commonDir = commonDir;
  if (toplevel && revParse.code === 0) facts.toplevel = toplevel;
  if (!gitDir) {
    const why = revParse.error ?? revParse.stderr.trim().split("\n")[0] ?? "";
    // Outside any repository there is nothing to describe; anything else is a problem worth saying.
    if (/not a git repository/i.test(why) && !lexical.gitDir) return facts;
    fromScan();
    facts.problems.push(`git rev-parse failed: ${why || "no answer"}`);
    return facts;
  }
  if (config.error) facts.problems.push(`git config --list failed: ${config.error}`);
  if (worktrees.error) facts.problems.push(`git worktree list failed: ${worktrees.error}`);
  // Git's answer and ours together: git's for what it resolved, ours for every condition's include.
  const gitDirs = { gitDir, commonDir: commonDir || gitDir };
  const more =
    gitDirs.commonDir !== lexical.commonDir || gitDirs.gitDir !== lexical.gitDir
      ? await scanGitConfig(configFiles(gitDirs, env, home).slice(3), { home, maxBytes })
      : undefined;
  for (const why of more?.unknown ?? []) facts.problems.push(`git's config could not be read in full: ${why}`);
  facts.config = mergeEntries(config.error ? [] : parseConfigList(config.stdout, dir), [
    ...scan.entries,
    ...(more?.entries ?? []),
  ]);
  facts.files = [...scan.files, ...(more?.files ?? [])];
  facts.worktrees = worktrees.stdout
    .split("\0")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => resolve(dir, line.slice("worktree ".length)));
  return facts;
}

/** Git's entries, then ours that git did not list (includes behind a condition false for now). */
function mergeEntries(fromGit: GitConfigEntry[], scanned: readonly GitConfigEntry[]): GitConfigEntry[] {
  const known = new Set(fromGit.map((e) => `${e.origin}\0${e.key.toLowerCase()}\0${e.value}`));
  return [...fromGit, ...scanned.filter((e) => !known.has(`${e.origin}\0${e.key.toLowerCase()}\0${e.value}`))];
}

/** `hazard`: a file git reads to find its folder that is not a regular one (git would block on a FIFO). */
type GitDirs = { gitDir?: string; commonDir?: string; hazard?: string };

/**
 * The git folder for `dir` as the files say, without git: the nearest `.git` folder or `gitdir:`
 * file up the tree (and a `commondir` file there), or `dir` itself when it is a bare repository.
 */
async function lexicalGitDirs(dir: string): Promise<GitDirs> {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const dotGit = join(at, ".git");
    const info = await stat(dotGit).catch(() => undefined);
    if (info && !info.isDirectory() && !info.isFile()) return { hazard: `${dotGit} is not a regular file or folder` };
    let gitDir: string | undefined;
    // A `.git` folder without HEAD is not a repository to git either: it looks further up.
    if (info?.isDirectory()) gitDir = existsSync(join(dotGit, "HEAD")) ? dotGit : undefined;
    else if (info?.isFile()) {
      const text = await readSmall(dotGit);
      const named = text?.match(/^gitdir:\s*(.+?)\s*$/m)?.[1];
      if (named) gitDir = resolve(at, named);
    } else if ((await stat(join(at, "HEAD")).catch(() => undefined))?.isFile() && existsSync(join(at, "objects")))
      gitDir = at;
    if (gitDir) {
      for (const name of ["HEAD", "commondir", "gitdir"]) {
        const file = await stat(join(gitDir, name)).catch(() => undefined);
        if (file && !file.isFile())
          return { gitDir, commonDir: gitDir, hazard: `${join(gitDir, name)} is not a regular file` };
      }
      const common = (await readSmall(join(gitDir, "commondir")))?.trim();
      return { gitDir, commonDir: common ? resolve(gitDir, common) : gitDir };
    }
    if (dirname(at) === at) return {};
  }
}

/** What git reads, in its order: system, XDG, global, the repository's config and its worktree's. */
function configFiles(dirs: GitDirs, env: Readonly<Record<string, string | undefined>>, home: string): string[] {
  const xdg = env.XDG_CONFIG_HOME || join(home, ".config");
  const files = ["/etc/gitconfig", join(xdg, "git", "config"), join(home, ".gitconfig")];
  if (dirs.commonDir) files.push(join(dirs.commonDir, "config"));
  if (dirs.gitDir) files.push(join(dirs.gitDir, "config.worktree"));
  return files;
}

/** A small regular file's text (`.git`, `commondir`): never a FIFO or device. */
async function readSmall(path: string): Promise<string | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile() || info.size > 64 * 1024) return undefined;
  return readFile(path, "utf8").catch(() => undefined);
}

/** `origin\0key\nvalue\0` records of `git config --list --show-origin -z`; file origins only. */
export function parseConfigList(output: string, cwd: string): GitConfigEntry[] {
  const fields = output.split("\0");
  const entries: GitConfigEntry[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i]!;
    const record = fields[i + 1]!;
    if (!origin.startsWith("file:")) continue;
    const newline = record.indexOf("\n");
    const key = newline === -1 ? record : record.slice(0, newline);
    const value = newline === -1 ? "" : record.slice(newline + 1);
    entries.push({ origin: resolve(cwd, origin.slice("file:".length)), key, value });
  }
  return entries;
}

function gitEnvironment(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = { LANG: "C", LC_ALL: "C", GIT_OPTIONAL_LOCKS: "0", GIT_TERMINAL_PROMPT: "0" };
  for (const name of ["PATH", "HOME", "XDG_CONFIG_HOME"]) {
    const value = env[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

type GitRun = { code: number | null; stdout: string; stderr: string; error?: string };

function runGit(
  git: string,
  cwd: string,
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  maxBytes: number,
) {
  return new Promise<GitRun>((done) => {
    // Our own timer, not execFile's: its kill can land as git exits and report success with the
    // output cut off. Here a timeout is always a failure, whatever the exit.
    let timedOut = false;
    const child = execFile(
      git,
      ["-c", "core.fsmonitor=false", "-c", "safe.directory=*", ...args],
      { cwd, env, maxBuffer: maxBytes, encoding: "utf8", windowsHide: true },
      (error, stdout, stderr) => {
        clearTimeout(timer);
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean; code?: unknown }) | null;
        const code = failure ? (typeof failure.code === "number" ? failure.code : null) : 0;
        const run: GitRun = { code: timedOut ? null : code, stdout: stdout ?? "", stderr: stderr ?? "" };
        if (timedOut) run.error = `timed out after ${timeoutMs} ms`;
        else if (failure?.code === "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") run.error = `output over ${maxBytes} bytes`;
        else if (failure && code === null) run.error = failure.message;
        else if (failure) run.error = (stderr ?? "").trim().split("\n")[0] || `exit ${code}`;
        done(run);
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, timeoutMs);
    // Nothing git reads as `/dev/stdin` can wait on us.
    child.stdin?.end();
  });
}

/**
 * `name` from the absolute PATH entries that are not inside `untrusted` folders (by real path), or
 * undefined. A project cannot put its own `git` first on PATH for us.
 */
export function findTrustedExecutable(
  name: string,
  pathVariable: string | undefined,
  untrusted: readonly string[],
): string | undefined {
  // A session in "/" would distrust every folder; the system's own folders are not the project's.
  const realUntrusted = untrusted.map((dir) => realOr(resolve(dir))).filter((dir) => dir !== "/");
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    const real = realOr(dir);
    if (realUntrusted.some((root) => isWithin(real, root))) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (!statSync(candidate).isFile()) continue;
      const target = realOr(candidate);
      if (realUntrusted.some((root) => isWithin(target, root))) continue;
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function realOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
