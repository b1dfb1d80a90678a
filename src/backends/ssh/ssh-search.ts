import { DEFAULT_GREP_MAX_COUNT } from "../search/fs-search.js";
import { FsOpError } from "../files/fs-errors.js";
import { fileFilter, planGlob, relativeMatcher } from "../search/glob-plan.js";
import { clipMatchText } from "../search/grep-files.js";
import type { FileInfo, GlobResult, GrepMatch, GrepResult } from "../protocol.js";
import { shellQuote, type StreamRun } from "./ssh-exec.js";
import type { RemoteFs } from "./ssh-sftp.js";

// grep and glob run where the files are: `rg` on the remote when it has one (same flags as the
// local ripgrep search: dotfiles in, .git out, .gitignore honoured), else POSIX `grep -r` and
// `find` (which do not read .gitignore; .git is still skipped). Only results cross the wire.
// The same code serves every remote kind (SSH hosts, containers): it needs a way to run a helper
// command there and stream its stdout, and the file primitives.

/** Runs a helper command where the files are and streams its stdout; `stop()` ends it early. */
export type StreamCommand = (
  command: string,
  timeoutMs: number,
  onStdout: (chunk: Buffer, stop: () => void) => void,
) => Promise<StreamRun>;

export type RemoteSearchOptions = {
  run: StreamCommand;
  /** Where the search runs, for messages (user@host, a container). */
  target: string;
  fs: RemoteFs;
  resolvePath(path: string): string;
  rootDir: string;
  timeoutMs: number;
  globLimit: number;
  /** Default: probe the remote for `rg`; false forces grep/find. */
  ripgrep?: boolean;
  /** Link counts on the remote (ssh-link-counts.ts): a folder search leaves out hard-linked files. */
  linkCounts?: (paths: readonly string[]) => Promise<ReadonlyMap<string, number>>;
};

const WALK_FLAGS = "--hidden --no-require-git --no-messages --glob '!.git'";
const MATCH_PREFIX = '{"type":"match"';

type RgData = { text?: string; bytes?: string };
const rgText = (data: RgData) =>
  data.text !== undefined ? data.text : Buffer.from(data.bytes ?? "", "base64").toString("utf8");
const stripNewline = (text: string) => text.replace(/\r?\n?$/, "");
const relativeTo = (base: string, path: string) => path.slice(base.endsWith("/") ? base.length : base.length + 1);

/** Splits a byte stream into separator-terminated records. */
function recordSplitter(separator: number, onRecord: (record: Buffer) => void) {
  let pending: Buffer = Buffer.alloc(0);
  return {
    push(chunk: Buffer) {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      let start = 0;
      let index: number;
      while ((index = pending.indexOf(separator, start)) !== -1) {
        onRecord(pending.subarray(start, index));
        start = index + 1;
      }
      pending = pending.subarray(start);
    },
    rest: () => pending,
  };
}

export function createRemoteSearch(options: RemoteSearchOptions) {
  const { run: stream, fs } = options;
  let hasRg: Promise<boolean> | undefined = options.ripgrep === false ? Promise.resolve(false) : undefined;

  function probeRg(): Promise<boolean> {
    hasRg ??= (async () => {
      let found = false;
      const result = await stream("command -v rg >/dev/null 2>&1 && echo yes", 10_000, (chunk) => {
        if (chunk.toString().includes("yes")) found = true;
      });
      // A failed probe is asked again next time rather than remembered.
      if (result.lost || result.timedOut) hasRg = undefined;
      return found;
    })();
    return hasRg;
  }

  async function resolveBase(
    path: string,
  ): Promise<{ path: string; isDir: boolean } | { error: string; missing: boolean }> {
    try {
      const full = options.resolvePath(path);
      const info = await fs.stat(full);
      return { path: full, isDir: info.isDirectory() };
    } catch (error) {
      return {
        error: (error as Error).message,
        missing: error instanceof FsOpError && error.code === "file_not_found",
      };
    }
  }

  async function grep(
    pattern: string,
    path?: string | null,
    glob?: string | null,
    maxCount?: number | null,
  ): Promise<GrepResult> {
    if (pattern.length === 0) return { error: "pattern must not be empty" };
    const limit = maxCount ?? DEFAULT_GREP_MAX_COUNT;
    if (!Number.isInteger(limit) || limit < 1)
      return { error: `max_count must be a positive integer, got ${maxCount}` };
    const base = await resolveBase(path ?? options.rootDir);
    if ("error" in base) return { error: base.error };
    if (pattern.includes("\n")) return { matches: [] };
    const pathGlob = glob && base.isDir && glob.includes("/") ? fileFilter(glob) : undefined;
    const nameGlob = glob && base.isDir && !glob.includes("/") ? glob : undefined;
    const accept = (file: string) => !pathGlob || pathGlob(relativeTo(base.path, file));

    const matches: GrepMatch[] = [];
    let truncated = false;
    const add = (file: string, line: number, text: string, stop: () => void) => {
      if (!accept(file)) return;
      if (matches.length >= limit) {
        truncated = true;
        stop();
        return;
      }
      matches.push({ path: file, line, text: clipMatchText(stripNewline(text)) });
    };

    let command: string;
    let onChunk: (chunk: Buffer, stop: () => void) => void;
    if (await probeRg()) {
      const type = nameGlob ? ` --type-add ${shellQuote(`deepacpfilter:${nameGlob}`)} --type deepacpfilter` : "";
      command = `rg --json --fixed-strings ${WALK_FLAGS} --max-count ${limit + 1}${type} -- ${shellQuote(pattern)} ${shellQuote(base.path)}`;
      let stopFn = () => {};
      const lines = recordSplitter(0x0a, (record) => {
        if (record.subarray(0, MATCH_PREFIX.length).toString() !== MATCH_PREFIX) return;
        const data = (
          JSON.parse(record.toString("utf8")) as { data: { path: RgData; lines: RgData; line_number: number } }
        ).data;
        add(rgText(data.path), data.line_number, rgText(data.lines), stopFn);
      });
      onChunk = (chunk, stop) => {
        stopFn = stop;
        lines.push(chunk);
      };
    } else {
      const include = nameGlob ? ` --include=${shellQuote(nameGlob)}` : "";
      command = `grep -rHnIF --null --exclude-dir=.git${include} -e ${shellQuote(pattern)} -- ${shellQuote(base.path)}`;
      let stopFn = () => {};
      const lines = recordSplitter(0x0a, (record) => {
        const nul = record.indexOf(0);
        if (nul === -1) return;
        const rest = record.subarray(nul + 1).toString("utf8");
        const colon = rest.indexOf(":");
        add(record.subarray(0, nul).toString("utf8"), Number(rest.slice(0, colon)), rest.slice(colon + 1), stopFn);
      });
      onChunk = (chunk, stop) => {
        stopFn = stop;
        lines.push(chunk);
      };
    }
    const run = await stream(command, options.timeoutMs, onChunk).catch((error: Error) => ({
      lost: error.message,
      code: null,
      stderr: "",
      timedOut: false,
    }));
    if (run.lost) return { error: `grep failed: ${run.lost}` };
    // 1 = nothing found; 2 with an empty stderr = unreadable files.
    if (!truncated && run.code !== null && run.code > 1 && run.stderr.trim() !== "")
      return { error: `grep failed on ${options.target} (exit ${run.code}): ${run.stderr.trim()}` };
    // As locally: a folder search leaves out files with more than one name (one may be outside the
    // project); a file whose count cannot be read is left out too.
    let kept = matches;
    if (base.isDir && options.linkCounts && matches.length > 0) {
      const counts = await options.linkCounts(matches.map((m) => m.path));
      kept = matches.filter((m) => counts.get(m.path) === 1);
    }
    kept.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line));
    return truncated || run.timedOut ? { matches: kept, truncated: true } : { matches: kept };
  }

  async function glob(pattern: string, path?: string): Promise<GlobResult> {
    const plan = planGlob(pattern, path ?? options.rootDir);
    if ("error" in plan) return plan;
    const base = await resolveBase(plan.base);
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
    const split = recordSplitter(0, (record) => {
      const file = record.toString("utf8");
      if (!matcher(relativeTo(base.path, file))) return;
      if (found.length >= options.globLimit) truncated = true;
      else found.push(file);
    });
    const depth = plan.maxDepth;
    const command = (await probeRg())
      ? `rg --files --null ${WALK_FLAGS}${depth !== undefined ? ` --max-depth ${depth}` : ""} -- ${shellQuote(base.path)}`
      : `find ${shellQuote(base.path)} -mindepth 1${depth !== undefined ? ` -maxdepth ${depth}` : ""} -name .git -prune -o -type f -print0`;
    const run = await stream(command, options.timeoutMs, (chunk, stop) => {
      split.push(chunk);
      if (truncated) stop();
    }).catch((error: Error) => ({ lost: error.message, code: null, stderr: "", timedOut: false }));
    if (run.lost) return { error: `glob failed: ${run.lost}` };
    const files: FileInfo[] = found.sort().map((file) => ({ path: file, isDir: false }));
    return truncated || run.timedOut ? { files, truncated: true } : { files };
  }

  return { grep, glob, hasRipgrep: probeRg };
}
