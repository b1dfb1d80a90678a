import { lstat, stat } from "node:fs/promises";
import type { GlobResult, GrepMatch, GrepResult, FileInfo } from "../protocol.js";
import { fileFilter, planGlob, relativeMatcher } from "./glob-plan.js";
import { toFsOpError } from "../files/fs-errors.js";
import { grepFiles } from "./grep-files.js";
import type { PathGuard } from "../paths/path-guard.js";
import { ripgrepFiles, ripgrepGrep, type SpawnFn } from "./ripgrep.js";
import { walkTree } from "./tree-walk.js";

// grep and glob over a real directory tree: ripgrep when available, else the JS walk.

export const DEFAULT_GREP_MAX_COUNT = 1000;

export type SearchContext = {
  guard: PathGuard;
  /** ripgrep binary, or undefined to use the JS walk. */
  rgPath: string | undefined;
  /** The JS search reads files up to this size whole and streams larger ones. */
  maxFileSizeBytes: number;
  timeoutMs: number;
  /** Most paths one glob returns; more set `truncated`. */
  globLimit: number;
  /** How glob lists files: the JS walk (no process spawn; fastest in our benchmark) or `rg --files`. */
  globEngine: "walk" | "ripgrep";
  spawn?: SpawnFn;
};

type Base = { host: string; display: string; isDir: boolean };

async function resolveBase(ctx: SearchContext, path: string): Promise<Base | { error: string; missing: boolean }> {
  try {
    const target = ctx.guard.resolve(path);
    const host = await ctx.guard.existing(target);
    const info = await stat(host);
    return { host, display: target.display, isDir: info.isDirectory() };
  } catch (error) {
    const failure = toFsOpError(error, path);
    return { error: failure.message, missing: failure.code === "file_not_found" };
  }
}

function relativeTo(base: string, path: string): string {
  return path.slice(base.endsWith("/") ? base.length : base.length + 1);
}

/** grep's glob for ripgrep: file-name globs as a file type, path globs checked on each match. */
function rgFilter(
  base: Base,
  glob: string | null | undefined,
): { nameGlob?: string; accept?: (path: string) => boolean } {
  if (!glob || !base.isDir) return {};
  if (!glob.includes("/")) return { nameGlob: glob };
  const filter = fileFilter(glob)!;
  return { accept: (path) => filter(relativeTo(base.host, path)) };
}

function rootPath(ctx: SearchContext): string {
  return ctx.guard.virtualMode ? "/" : ctx.guard.rootDir;
}

/** grep over a directory tree or one file; never throws. */
export async function grepTree(
  ctx: SearchContext,
  pattern: string,
  path: string | null | undefined,
  glob: string | null | undefined,
  maxCount: number | null | undefined,
): Promise<GrepResult> {
  try {
    return await grepTreeUnsafe(ctx, pattern, path, glob, maxCount);
  } catch (error) {
    return { error: `grep failed: ${(error as Error).message}` };
  }
}

async function grepTreeUnsafe(
  ctx: SearchContext,
  pattern: string,
  path: string | null | undefined,
  glob: string | null | undefined,
  maxCount: number | null | undefined,
): Promise<GrepResult> {
  if (pattern.length === 0) return { error: "pattern must not be empty" };
  const limit = maxCount ?? DEFAULT_GREP_MAX_COUNT;
  if (!Number.isInteger(limit) || limit < 1) return { error: `max_count must be a positive integer, got ${maxCount}` };
  const base = await resolveBase(ctx, path ?? rootPath(ctx));
  if ("error" in base) return { error: base.error };
  // Lines never contain a newline, so such a literal cannot match (ripgrep refuses it outright).
  if (pattern.includes("\n")) return { matches: [] };

  const display = (host: string) => ctx.guard.displayOf(host, base);
  let result: GrepResult;
  if (ctx.rgPath) {
    const found = await ripgrepGrep({
      rgPath: ctx.rgPath,
      pattern,
      base: base.host,
      ...rgFilter(base, glob),
      maxCount: limit,
      timeoutMs: ctx.timeoutMs,
      ...(ctx.spawn ? { spawn: ctx.spawn } : {}),
    });
    if (found.error) return { error: found.error };
    const kept = base.isDir ? await withoutHardLinked(found.matches) : found.matches;
    result = { matches: kept.map((m) => ({ ...m, path: display(m.path) })), truncated: found.truncated };
  } else {
    result = await grepWithWalk(ctx, pattern, base, glob, limit, display);
  }
  result.matches!.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
  return result;
}

async function grepWithWalk(
  ctx: SearchContext,
  pattern: string,
  base: Base,
  glob: string | null | undefined,
  limit: number,
  display: (host: string) => string,
): Promise<GrepResult> {
  const files: string[] = [];
  if (base.isDir) {
    const filter = fileFilter(glob);
    await walkTree({
      base: base.host,
      ...(ctx.guard.virtualMode ? { ignoreRoot: await ctx.guard.realRoot() } : {}),
      onFile: (file) => {
        if (!filter || filter(relativeTo(base.host, file))) files.push(file);
      },
    });
  } else {
    files.push(base.host);
  }
  if (base.isDir)
    files.splice(0, files.length, ...(await withoutHardLinked(files.map((path) => ({ path })))).map((f) => f.path));
  const matches: GrepMatch[] = [];
  let truncated = false;
  await grepFiles(files, pattern, ctx.maxFileSizeBytes, (file, line, text) => {
    if (matches.length >= limit) {
      truncated = true;
      return false;
    }
    matches.push({ path: display(file), line, text });
    return true;
  });
  return { matches, truncated };
}

/** glob under a directory; never throws. */
export async function globTree(ctx: SearchContext, pattern: string, path: string | undefined): Promise<GlobResult> {
  try {
    return await globTreeUnsafe(ctx, pattern, path);
  } catch (error) {
    return { error: `glob failed: ${(error as Error).message}` };
  }
}

async function globTreeUnsafe(ctx: SearchContext, pattern: string, path: string | undefined): Promise<GlobResult> {
  const plan = planGlob(pattern, path ?? rootPath(ctx));
  if ("error" in plan) return plan;
  const base = await resolveBase(ctx, plan.base);
  // A base that does not exist simply has no matches.
  if ("error" in base) return base.missing ? { files: [] } : { error: base.error };
  if (!base.isDir) return { files: [] };

  let matcher: (rel: string) => boolean;
  try {
    matcher = relativeMatcher(plan.rest);
  } catch (error) {
    return { error: `invalid glob pattern '${pattern}': ${(error as Error).message}` };
  }
  const found: string[] = [];
  let truncated = false;
  // Every listed file is under the base, so its display path is the base's plus the relative path
  // (what guard.displayOf computes with path.relative, which cost more than the match itself).
  const displayPrefix = base.display === "/" ? "/" : `${base.display}/`;
  const onFile = (host: string) => {
    const rel = relativeTo(base.host, host);
    if (!matcher(rel)) return true;
    if (found.length >= ctx.globLimit) {
      truncated = true;
      return false;
    }
    found.push(displayPrefix + rel);
    return true;
  };
  // No --glob for rg here: a whitelist glob would override .gitignore. Matching happens in onFile.
  if (ctx.rgPath && ctx.globEngine === "ripgrep") {
    const listed = await ripgrepFiles({
      rgPath: ctx.rgPath,
      base: base.host,
      timeoutMs: ctx.timeoutMs,
      onFile,
      ...(plan.maxDepth !== undefined ? { maxDepth: plan.maxDepth } : {}),
      ...(ctx.spawn ? { spawn: ctx.spawn } : {}),
    });
    if (listed.error) return { error: listed.error };
    if (listed.timedOut) truncated = true;
  } else {
    await walkTree({
      base: base.host,
      onFile,
      ...(plan.maxDepth !== undefined ? { maxDepth: plan.maxDepth } : {}),
      ...(ctx.guard.virtualMode ? { ignoreRoot: await ctx.guard.realRoot() } : {}),
    });
  }
  // Plain string sort is code-unit order, like the comparisons used everywhere else, and much faster.
  const files: FileInfo[] = found.sort().map((path) => ({ path, isDir: false }));
  return truncated ? { files, truncated } : { files };
}

/**
 * A search over a folder leaves out files with more than one hard link: such a file may be the
 * same file as one outside the project (`ln ~/.ssh/id_rsa notes.txt`), which only a search named
 * at that file itself (asked about by the gate) may read.
 */
async function withoutHardLinked<T extends { path: string }>(items: readonly T[]): Promise<T[]> {
  const linked = new Map<string, boolean>();
  for (const path of new Set(items.map((i) => i.path))) {
    const info = await lstat(path).catch(() => undefined);
    linked.set(path, info !== undefined && info.isFile() && info.nlink > 1);
  }
  return items.filter((i) => !linked.get(i.path));
}
