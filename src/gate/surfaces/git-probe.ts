import { execFile } from "node:child_process";
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, resolve } from "node:path";
import { isWithin } from "../../backends/paths/real-path.js";

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
// - each call with a timeout (3 s) and an output cap.

export type GitConfigEntry = {
  /** Absolute path of the file the entry came from. */
  origin: string;
  /** As git prints it: section and name lower-cased, subsection as written. */
  key: string;
  value: string;
};

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
  /** Why (part of) the answer is missing: git not found, timed out, refused. */
  problems: string[];
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
};

/** The folders git itself would use for `dir`; never throws (problems say what is missing). */
export async function probeGit(dir: string, options: GitProbeOptions): Promise<GitFacts> {
  const env = options.env ?? process.env;
  const facts: GitFacts = { config: [], worktrees: [], problems: [] };
  const git = options.gitPath ?? findTrustedExecutable("git", env.PATH, options.untrusted);
  if (!git) {
    facts.problems.push("git was not found on PATH outside the project; only the literal .git entries count");
    return facts;
  }
  const run = (args: string[]) => runGit(git, dir, args, gitEnvironment(env), options.timeoutMs ?? 3000);
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
    if (!/not a git repository/i.test(why)) facts.problems.push(`git rev-parse failed: ${why || "no answer"}`);
    return facts;
  }
  facts.config = parseConfigList(config.stdout, dir);
  if (config.error) facts.problems.push(`git config --list failed: ${config.error}`);
  facts.worktrees = worktrees.stdout
    .split("\0")
    .filter((line) => line.startsWith("worktree "))
    .map((line) => resolve(dir, line.slice("worktree ".length)));
  return facts;
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

function runGit(git: string, cwd: string, args: string[], env: Record<string, string>, timeoutMs: number) {
  return new Promise<GitRun>((done) => {
    execFile(
      git,
      ["-c", "core.fsmonitor=false", "-c", "safe.directory=*", ...args],
      { cwd, env, timeout: timeoutMs, maxBuffer: 4 * 1024 * 1024, encoding: "utf8", windowsHide: true },
      (error, stdout, stderr) => {
        const failure = error as (NodeJS.ErrnoException & { killed?: boolean; code?: unknown }) | null;
        const code = failure ? (typeof failure.code === "number" ? failure.code : null) : 0;
        const run: GitRun = { code, stdout: stdout ?? "", stderr: stderr ?? "" };
        if (failure?.killed) run.error = `timed out after ${timeoutMs} ms`;
        else if (failure && code === null) run.error = failure.message;
        else if (failure) run.error = (stderr ?? "").trim().split("\n")[0] || `exit ${code}`;
        done(run);
      },
    );
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
