import { readFile, readdir } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import ignore, { type Ignore } from "ignore";
import { isWithin } from "../../util/path-within.js";

// The JS walk used when ripgrep is not installed. It mirrors ripgrep's defaults that matter to us:
// hidden files included, `.git` skipped, symlinks not followed, and .gitignore / .ignore / .rgignore
// honoured in the searched tree and its parent directories (the nearest file wins, negations work),
// plus a repository's .git/info/exclude. Not mirrored: the user's global excludes file.

const IGNORE_FILES = [".gitignore", ".ignore", ".rgignore"];
const DIR_CONCURRENCY = 16;

type IgnoreLevel = { dir: string; matcher: Ignore };

export type WalkOptions = {
  /** Host directory to walk. */
  base: string;
  /** 1 = direct children of base only. */
  maxDepth?: number;
  /** Parent ignore files are read from here down to `base` (default: the filesystem root). */
  ignoreRoot?: string;
  /** Called per regular file with its host path; return false to stop the walk. */
  onFile(path: string): boolean | void;
};

export async function walkTree(options: WalkOptions): Promise<void> {
  const inherited = await parentIgnoreLevels(options.base, options.ignoreRoot ?? "/");
  let stopped = false;
  const queue: Array<{ dir: string; depth: number; levels: IgnoreLevel[] }> = [
    { dir: options.base, depth: 1, levels: inherited },
  ];
  let active = 0;

  await new Promise<void>((resolveWalk) => {
    const pump = () => {
      while (!stopped && active < DIR_CONCURRENCY && queue.length > 0) {
        active++;
        void visit(queue.pop()!).finally(() => {
          active--;
          pump();
        });
      }
      if (active === 0) resolveWalk();
    };

    const visit = async (job: { dir: string; depth: number; levels: IgnoreLevel[] }) => {
      let entries;
      try {
        entries = await readdir(job.dir, { withFileTypes: true });
      } catch {
        return; // unreadable directories are skipped, as ripgrep does with --no-messages
      }
      const isRepo = entries.some((e) => e.name === ".git");
      const own =
        isRepo || entries.some((e) => IGNORE_FILES.includes(e.name)) ? await loadIgnore(job.dir, isRepo) : undefined;
      const levels = own ? [...job.levels, own] : job.levels;
      // Entry names hold no "/", so plain concatenation gives what join() would, without normalising
      // every path again (that was a fifth of a 50,000-file glob).
      const prefix = job.dir.endsWith("/") ? job.dir : `${job.dir}/`;
      for (const entry of entries) {
        if (stopped) return;
        if (entry.name === ".git" || entry.isSymbolicLink()) continue;
        const path = prefix + entry.name;
        const isDir = entry.isDirectory();
        if (!isDir && !entry.isFile()) continue;
        if (isIgnored(levels, path, isDir)) continue;
        if (isDir) {
          if (options.maxDepth === undefined || job.depth < options.maxDepth)
            queue.push({ dir: path, depth: job.depth + 1, levels });
        } else if (options.onFile(path) === false) {
          stopped = true;
        }
      }
    };

    pump();
  });
}

function isIgnored(levels: IgnoreLevel[], path: string, isDir: boolean): boolean {
  for (let i = levels.length - 1; i >= 0; i--) {
    const level = levels[i]!;
    const rel = relative(level.dir, path);
    const result = level.matcher.test(isDir ? `${rel}/` : rel);
    if (result.ignored) return true;
    if (result.unignored) return false;
  }
  return false;
}

async function loadIgnore(dir: string, isRepo = false): Promise<IgnoreLevel | undefined> {
  let matcher: Ignore | undefined;
  // A repository's own exclude file ranks below its .gitignore, so it is added first.
  for (const file of isRepo ? [join(".git", "info", "exclude"), ...IGNORE_FILES] : IGNORE_FILES) {
    let text: string;
    try {
      text = await readFile(join(dir, file), "utf8");
    } catch {
      continue;
    }
    matcher ??= ignore({ allowRelativePaths: true });
    matcher.add(text);
  }
  return matcher ? { dir, matcher } : undefined;
}

async function parentIgnoreLevels(base: string, stopAt: string): Promise<IgnoreLevel[]> {
  const dirs: string[] = [];
  let dir = dirname(base);
  while (dir !== base && isWithin(dir, stopAt)) {
    dirs.unshift(dir);
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  const levels = await Promise.all(dirs.map((d) => loadIgnore(d, true)));
  return levels.filter((l): l is IgnoreLevel => l !== undefined);
}
