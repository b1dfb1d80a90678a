import { spawn as nodeSpawn, type ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { clipMatchText } from "./grep-files.js";
import type { GrepMatch } from "../protocol.js";

// ripgrep does the heavy lifting for grep (and, on request, glob's file listing) when installed: it
// walks in parallel, honours .gitignore and skips binary files. We read its output as a stream and
// stop it as soon as we have enough, so a search over a huge tree costs what ripgrep costs.

export type SpawnFn = (
  command: string,
  args: string[],
  options: { stdio: ["ignore", "pipe", "pipe"]; env: NodeJS.ProcessEnv },
) => ChildProcess;

/**
 * ripgrep starts with only what it needs: no API keys (a file it reads could be /proc/self/environ
 * of its own process), and no RIPGREP_CONFIG_PATH (a config file can add `--pre`, which runs a
 * program on every file searched).
 */
export function helperEnv(source: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const name of ["PATH", "HOME", "LANG"]) if (source[name] !== undefined) env[name] = source[name];
  return env;
}

/** First executable called `name` on PATH. */
export function findExecutable(name: string, pathVariable: string | undefined = process.env.PATH): string | undefined {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Flags shared by grep and file listing: dotfiles in, .git out, .gitignore honoured even outside git. */
const WALK_FLAGS = ["--no-config", "--hidden", "--no-require-git", "--no-messages", "--glob", "!.git"];

export type RipgrepGrepOptions = {
  rgPath: string;
  pattern: string;
  /** Host path searched (file or directory). */
  base: string;
  /**
   * File-name filter (`*.py`). Applied as a ripgrep file type, not `--glob`: a `--glob` whitelist
   * would override .gitignore and bring ignored files back.
   */
  nameGlob?: string | null;
  /** Further filter on matched host paths (for path-shaped globs); rejected matches do not count. */
  accept?: (path: string) => boolean;
  /** Stop after this many matching lines; `truncated` says whether more existed. */
  maxCount: number;
  timeoutMs: number;
  spawn?: SpawnFn;
};

export type RipgrepGrepResult = { matches: GrepMatch[]; truncated: boolean; error?: string };

export function ripgrepGrep(options: RipgrepGrepOptions): Promise<RipgrepGrepResult> {
  const args = ["--json", "--fixed-strings", ...WALK_FLAGS];
  args.push("--max-count", String(options.maxCount + 1));
  if (options.nameGlob) args.push("--type-add", `deepacpfilter:${options.nameGlob}`, "--type", "deepacpfilter");
  args.push("--", options.pattern, options.base);
  const matches: GrepMatch[] = [];
  let truncated = false;
  return runLines(options, args, "\n", (line, stop) => {
    // Only match records matter; begin/end/summary records are skipped without parsing.
    if (!line.startsWith('{"type":"match"')) return;
    const record = JSON.parse(line) as { data: RgMatchData };
    const data = record.data;
    const path = rgText(data.path);
    if (options.accept && !options.accept(path)) return;
    matches.push({ path, line: data.line_number, text: clipMatchText(stripNewline(rgText(data.lines))) });
    if (matches.length > options.maxCount) {
      truncated = true;
      stop();
    }
  }).then(({ timedOut, error }) => {
    if (truncated) matches.length = options.maxCount;
    return { matches, truncated: truncated || timedOut, ...(error ? { error } : {}) };
  });
}

export type RipgrepFilesOptions = {
  rgPath: string;
  base: string;
  /** 1 = direct children of base. */
  maxDepth?: number;
  timeoutMs: number;
  spawn?: SpawnFn;
  /** Called per file (host path); return false to stop listing. */
  onFile(path: string): boolean | void;
};

export function ripgrepFiles(options: RipgrepFilesOptions): Promise<{ timedOut: boolean; error?: string }> {
  const args = ["--files", "--null", ...WALK_FLAGS];
  if (options.maxDepth !== undefined) args.push("--max-depth", String(options.maxDepth));
  args.push("--", options.base);
  return runLines(options, args, "\0", (path, stop) => {
    if (options.onFile(path) === false) stop();
  });
}

type RgData = { text?: string; bytes?: string };
type RgMatchData = { path: RgData; lines: RgData; line_number: number };

function rgText(data: RgData): string {
  if (data.text !== undefined) return data.text;
  return Buffer.from(data.bytes ?? "", "base64").toString("utf8");
}

function stripNewline(text: string): string {
  if (text.endsWith("\r\n")) return text.slice(0, -2);
  if (text.endsWith("\n")) return text.slice(0, -1);
  return text;
}

/** Runs rg and feeds `onRecord` each separator-terminated record until rg ends or `stop` is called. */
function runLines(
  options: { rgPath: string; timeoutMs: number; spawn?: SpawnFn },
  args: string[],
  separator: string,
  onRecord: (record: string, stop: () => void) => void,
): Promise<{ timedOut: boolean; error?: string }> {
  const spawn = options.spawn ?? (nodeSpawn as unknown as SpawnFn);
  return new Promise((resolvePromise) => {
    let child: ChildProcess;
    try {
      child = spawn(options.rgPath, args, { stdio: ["ignore", "pipe", "pipe"], env: helperEnv() });
    } catch (error) {
      resolvePromise({ timedOut: false, error: `cannot run ripgrep: ${(error as Error).message}` });
      return;
    }
    let stopped = false;
    let timedOut = false;
    let failure: string | undefined;
    let pending = "";
    let stderr = "";
    const stop = () => {
      if (stopped) return;
      stopped = true;
      child.stdout?.removeAllListeners("data");
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, options.timeoutMs);
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (chunk: string) => {
      pending += chunk;
      let start = 0;
      let index: number;
      try {
        while (!stopped && (index = pending.indexOf(separator, start)) !== -1) {
          onRecord(pending.slice(start, index), stop);
          start = index + 1;
        }
      } catch (error) {
        failure = `cannot read ripgrep output: ${(error as Error).message}`;
        stop();
      }
      pending = stopped ? "" : pending.slice(start);
    });
    child.stderr!.setEncoding("utf8");
    child.stderr!.on("data", (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on("error", (error) => {
      failure = `cannot run ripgrep: ${error.message}`;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (!stopped && pending.length > 0 && separator === "\n") {
        try {
          onRecord(pending, stop);
        } catch {
          // a truncated last record is not worth an error
        }
      }
      // 1 = nothing found; 2 with an empty stderr = unreadable files, which --no-messages hides.
      const fatal = code !== 0 && code !== 1 && (code !== 2 || stderr.trim() !== "");
      if (!stopped && !failure && fatal) failure = `ripgrep failed (exit ${code}): ${stderr.trim()}`;
      resolvePromise({ timedOut, ...(failure ? { error: failure } : {}) });
    });
  });
}
