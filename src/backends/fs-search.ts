import { open, stat } from "node:fs/promises";
import type { GlobResult, GrepMatch, GrepResult, FileInfo } from "./protocol.js";
import { fileFilter, planGlob, relativeMatcher } from "./glob-plan.js";
import { toFsOpError } from "./fs-errors.js";
import { getMimeType, isTextMimeType, looksBinary } from "./mime.js";
import type { PathGuard } from "./path-guard.js";
import { ripgrepFiles, ripgrepGrep, type SpawnFn } from "./ripgrep.js";
import { walkTree } from "./tree-walk.js";

// grep and glob over a real directory tree: ripgrep when available, else the JS walk.

export const DEFAULT_GREP_MAX_COUNT = 1000;

export type SearchContext = {
  guard: PathGuard;
  /** ripgrep binary, or undefined to use the JS walk. */
  rgPath: string | undefined;
  maxFileSizeBytes: number;
  timeoutMs: number;
  /** Most paths one glob returns; more set `truncated`. */
  globLimit: number;
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

function rootPath(ctx: SearchContext): string {
  return ctx.guard.virtualMode ? "/" : ctx.guard.rootDir;
}

export async function grepTree(
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
      glob: base.isDir ? glob : null,
      maxCount: limit,
      maxFileSizeBytes: ctx.maxFileSizeBytes,
      timeoutMs: ctx.timeoutMs,
      ...(ctx.spawn ? { spawn: ctx.spawn } : {}),
    });
    if (found.error) return { error: found.error };
    result = { matches: found.matches.map((m) => ({ ...m, path: display(m.path) })), truncated: found.truncated };
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
  const matches: GrepMatch[] = [];
  let truncated = false;
  let next = 0;
  const worker = async () => {
    while (!truncated && next < files.length) {
      const file = files[next++]!;
      const text = await readSearchable(file, ctx.maxFileSizeBytes);
      if (text === undefined) continue;
      searchText(text, pattern, (line, lineText) => {
        if (matches.length >= limit) {
          truncated = true;
          return false;
        }
        matches.push({ path: display(file), line, text: lineText });
        return true;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(16, files.length) }, worker));
  return { matches, truncated };
}

/** The file's text, or undefined when it is binary, too large or unreadable. */
async function readSearchable(path: string, maxBytes: number): Promise<string | undefined> {
  const mime = getMimeType(path);
  if (mime && !isTextMimeType(mime)) return undefined;
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const bytes = await handle.readFile();
    if (looksBinary(bytes)) return undefined;
    return bytes.toString("utf8");
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Calls `onMatch` once per line containing `pattern`; stops when it returns false. */
export function searchText(text: string, pattern: string, onMatch: (line: number, text: string) => boolean): void {
  let line = 1;
  let counted = 0;
  let index = text.indexOf(pattern);
  while (index !== -1) {
    const lineStart = text.lastIndexOf("\n", index - 1) + 1;
    for (let nl = text.indexOf("\n", counted); nl !== -1 && nl < lineStart; nl = text.indexOf("\n", nl + 1)) line++;
    counted = lineStart;
    let lineEnd = text.indexOf("\n", index);
    if (lineEnd === -1) lineEnd = text.length;
    let lineText = text.slice(lineStart, lineEnd);
    if (lineText.endsWith("\r")) lineText = lineText.slice(0, -1);
    if (!onMatch(line, lineText)) return;
    index = lineEnd >= text.length ? -1 : text.indexOf(pattern, lineEnd + 1);
  }
}

export async function globTree(ctx: SearchContext, pattern: string, path: string | undefined): Promise<GlobResult> {
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
  const files: FileInfo[] = [];
  let truncated = false;
  const onFile = (host: string) => {
    if (!matcher(relativeTo(base.host, host))) return true;
    if (files.length >= ctx.globLimit) {
      truncated = true;
      return false;
    }
    files.push({ path: ctx.guard.displayOf(host, base), isDir: false });
    return true;
  };
  if (ctx.rgPath) {
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
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return truncated ? { files, truncated } : { files };
}
