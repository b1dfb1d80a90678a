import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { GitConfigEntry } from "./git-probe.js";
import { expandHome } from "./git-programs.js";

// Git's config files read by us, before git is asked, for what git alone cannot be trusted to say:
// - every include is followed whatever its condition (`includeIf "onbranch:later"`, `hasconfig:`,
//   `gitdir:`): git only follows the ones true right now, so a hooks path set for a later branch
//   would be invisible;
// - no include can stall or steer the answer: each file is checked before it is read and opened
//   non-blocking, so a FIFO, a device, `/dev/stdin`, a folder or an unreadable file is never read
//   (git would block on it, or fail) and makes the answer unknown instead;
// - a cap on what is read (32 MB in all): past it the answer is unknown, never cut short silently.
// The syntax is git's (config.c): sections, `[section "sub"]`, keys on the header's line, quoted
// values with escapes, `\` continuations, `#`/`;` comments. Entries come out as `git config --list`
// prints them (section and name lower-cased, subsection as written).

export type GitConfigScan = {
  entries: GitConfigEntry[];
  /** Every file read or named as an include (missing ones too: they can be created later). */
  files: string[];
  /** Why the answer is incomplete: an include that is not a regular file, a file too big, bad syntax. */
  unknown: string[];
};

export type GitConfigScanOptions = { home: string; maxBytes?: number };

/** Git's limit (MAX_INCLUDE_DEPTH): past it git itself fails. */
const MAX_DEPTH = 10;
export const DEFAULT_SCAN_BYTES = 32 * 1024 * 1024;

/** Scans `files` (git's own config files, in git's order) and everything they include. */
export async function scanGitConfig(files: readonly string[], options: GitConfigScanOptions): Promise<GitConfigScan> {
  const scan: GitConfigScan = { entries: [], files: [], unknown: [] };
  const seen = new Set<string>();
  let budget = options.maxBytes ?? DEFAULT_SCAN_BYTES;

  async function visit(path: string, depth: number, includedBy: string | undefined): Promise<void> {
    scan.files.push(path);
    // A file included twice (or in a loop) is read once: what it names counts either way.
    const real = await realpath(path).catch(() => path);
    if (seen.has(real)) return;
    seen.add(real);
    const read = await readRegularFile(path, budget);
    if (read.kind === "missing") return;
    if (read.kind === "refused") {
      scan.unknown.push(`${path}${includedBy ? ` (included by ${includedBy})` : ""} ${read.why}`);
      return;
    }
    budget -= read.text.length;
    const parsed = parseGitConfig(read.text, path);
    if (parsed.error) scan.unknown.push(`${path}: ${parsed.error}`);
    for (const entry of parsed.entries) {
      scan.entries.push(entry);
      const target = includeTarget(entry, options.home);
      if (target === undefined) continue;
      if (typeof target === "object") scan.unknown.push(`${path} includes ${entry.value}: ${target.why}`);
      else if (depth >= MAX_DEPTH) scan.unknown.push(`${path} includes ${target} past git's depth limit`);
      else await visit(target, depth + 1, path);
    }
  }

  for (const file of files) await visit(file, 0, undefined);
  return scan;
}

/** `include.path` and `includeIf.<any condition>.path`: the file it names, or why it cannot be known. */
function includeTarget(entry: GitConfigEntry, home: string): string | { why: string } | undefined {
  const key = entry.key.toLowerCase();
  if (key !== "include.path" && !(key.startsWith("includeif.") && key.endsWith(".path"))) return undefined;
  const value = entry.value;
  if (value === "") return undefined;
  if (value.startsWith("%(") || /^~[^/]/.test(value)) return { why: "a path form not resolved here" };
  return expandHome(value, home, dirname(entry.origin));
}

type Read = { kind: "text"; text: string } | { kind: "missing" } | { kind: "refused"; why: string };

/**
 * A regular file's text, or why not. The type is checked before opening and again on the opened
 * file (opened non-blocking: a FIFO swapped in between cannot hold the open).
 */
async function readRegularFile(path: string, budget: number): Promise<Read> {
  const before = await stat(path).catch((error: NodeJS.ErrnoException) => error);
  if (before instanceof Error)
    return before.code === "ENOENT" || before.code === "ENOTDIR"
      ? { kind: "missing" }
      : { kind: "refused", why: `cannot be read (${before.code ?? before.message})` };
  if (!before.isFile()) return { kind: "refused", why: `is not a regular file (${typeOf(before)})` };
  if (before.size > budget) return { kind: "refused", why: `is over the ${DEFAULT_SCAN_BYTES >> 20} MB read limit` };
  const handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOCTTY).catch(
    (error: NodeJS.ErrnoException) => error,
  );
  if (handle instanceof Error) return { kind: "refused", why: `cannot be read (${handle.code ?? handle.message})` };
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: "refused", why: `is not a regular file (${typeOf(info)})` };
    if (info.size > budget) return { kind: "refused", why: `is over the ${DEFAULT_SCAN_BYTES >> 20} MB read limit` };
    return { kind: "text", text: await handle.readFile("utf8") };
  } catch (error) {
    return { kind: "refused", why: `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  } finally {
    await handle.close().catch(() => {});
  }
}

function typeOf(info: { isFIFO(): boolean; isCharacterDevice(): boolean; isDirectory(): boolean }): string {
  if (info.isFIFO()) return "a FIFO";
  if (info.isCharacterDevice()) return "a device";
  if (info.isDirectory()) return "a folder";
  return "not a file";
}

/** Git's config syntax (config.c's parser), as entries; `error` at the first line git would refuse. */
export function parseGitConfig(text: string, origin: string): { entries: GitConfigEntry[]; error?: string } {
  const entries: GitConfigEntry[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let section: string | undefined;
  const fail = (why: string) => ({ entries, error: `bad config line ${line} (${why})` });
  const at = () => (text[i] === "\r" && text[i + 1] === "\n" ? "\n" : text[i]);
  const next = () => {
    const c = at();
    i += c === "\n" && text[i] === "\r" ? 2 : 1;
    if (c === "\n") line++;
    return c;
  };
  while (i < text.length) {
    const c = next();
    if (c === "\n" || c === " " || c === "\t" || c === "\r") continue;
    if (c === "#" || c === ";") {
      while (i < text.length && at() !== "\n") next();
      continue;
    }
    if (c === "[") {
      const header = parseHeader();
      if (header === undefined) return fail("section header");
      section = header;
      continue;
    }
    if (!c || !/[A-Za-z]/.test(c) || section === undefined) return fail("expected a key");
    let name = c;
    while (i < text.length && /[A-Za-z0-9-]/.test(at()!)) name += next();
    while (at() === " " || at() === "\t") next();
    if (i >= text.length || at() === "\n" || at() === "#" || at() === ";") {
      entries.push({ origin, key: `${section}.${name.toLowerCase()}`, value: "" });
      continue;
    }
    if (next() !== "=") return fail("expected '='");
    const value = parseValue();
    if (value === undefined) return fail("value");
    entries.push({ origin, key: `${section}.${name.toLowerCase()}`, value });
  }
  return { entries };

  function parseHeader(): string | undefined {
    let name = "";
    while (i < text.length && /[A-Za-z0-9.-]/.test(at()!)) name += next();
    if (at() === "]") {
      next();
      return name ? name.toLowerCase() : undefined;
    }
    if (at() !== " " && at() !== "\t") return undefined;
    while (at() === " " || at() === "\t") next();
    if (next() !== '"') return undefined;
    let sub = "";
    for (;;) {
      if (i >= text.length || at() === "\n") return undefined;
      const c = next()!;
      if (c === '"') break;
      if (c === "\\") {
        if (i >= text.length || at() === "\n") return undefined;
        sub += next();
      } else sub += c;
    }
    if (next() !== "]") return undefined;
    return `${name.toLowerCase()}.${sub}`;
  }

  function parseValue(): string | undefined {
    let value = "";
    let quoted = false;
    let pendingSpace = "";
    while (at() === " " || at() === "\t") next();
    while (i < text.length) {
      const c = next()!;
      if (c === "\n") {
        if (quoted) return undefined;
        break;
      }
      if (!quoted && (c === ";" || c === "#")) {
        while (i < text.length && at() !== "\n") next();
        break;
      }
      if (!quoted && (c === " " || c === "\t")) {
        pendingSpace += c;
        continue;
      }
      value += pendingSpace;
      pendingSpace = "";
      if (c === "\\") {
        if (i >= text.length) return undefined;
        const e = next();
        if (e === "\n") continue;
        const escaped: Record<string, string> = { t: "\t", b: "\b", n: "\n", "\\": "\\", '"': '"' };
        if (!(e! in escaped)) return undefined;
        value += escaped[e!];
        continue;
      }
      if (c === '"') {
        quoted = !quoted;
        continue;
      }
      value += c;
    }
    return quoted ? undefined : value;
  }
}
