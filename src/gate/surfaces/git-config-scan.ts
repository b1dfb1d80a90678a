import { constants } from "node:fs";
import { open, realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";

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

export type GitConfigEntry = {
  /** Absolute path of the file the entry came from. */
  origin: string;
  /** As git prints it: section and name lower-cased, subsection as written. */
  key: string;
  value: string;
};

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

/** `~/x` and `~` against home, relative paths against `base` (git's own rules for config paths). */
export function expandHome(value: string, home: string, base: string): string {
  if (value === "~") return home;
  if (value.startsWith("~/")) return join(home, value.slice(2));
  return isAbsolute(value) ? resolve(value) : resolve(base, value);
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
  // Sticky patterns step over runs of ordinary characters natively: a 5 MB file parses in tens of ms.
  const BLANK = /[ \t\r\n]*/y;
  const SPACES = /[ \t]*/y;
  const NAME = /[A-Za-z][A-Za-z0-9-]*/y;
  const SECTION = /[A-Za-z0-9.-]*/y;
  const PLAIN = /[^\r\n"\\#; \t]*/y;
  const QUOTED = /[^\r\n"\\]*/y;
  const entries: GitConfigEntry[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let section: string | undefined;
  const sticky = (pattern: RegExp) => {
    pattern.lastIndex = i;
    const found = pattern.exec(text)![0];
    i += found.length;
    return found;
  };
  const fail = (why: string) => ({
    entries,
    error: `bad config line ${text.slice(0, i).split("\n").length} (${why})`,
  });
  const endOfLine = () => {
    const end = text.indexOf("\n", i);
    i = end === -1 ? text.length : end + 1;
  };
  for (;;) {
    sticky(BLANK);
    if (i >= text.length) return { entries };
    const c = text[i]!;
    if (c === "#" || c === ";") {
      endOfLine();
      continue;
    }
    if (c === "[") {
      i++;
      const header = parseHeader();
      if (header === undefined) return fail("section header");
      section = header;
      continue;
    }
    const name = sticky(NAME);
    if (!name || section === undefined) return fail("expected a key");
    sticky(SPACES);
    const key = `${section}.${name.toLowerCase()}`;
    if (i >= text.length || text[i] === "\n" || text[i] === "\r") {
      entries.push({ origin, key, value: "" });
      continue;
    }
    if (text[i] !== "=") return fail("expected '='");
    i++;
    const value = parseValue();
    if (value === undefined) return fail("value");
    entries.push({ origin, key, value });
  }

  function parseHeader(): string | undefined {
    const name = sticky(SECTION);
    if (text[i] === "]") {
      i++;
      return name ? name.toLowerCase() : undefined;
    }
    if (!sticky(SPACES) || text[i] !== '"') return undefined;
    i++;
    let sub = "";
    for (;;) {
      sub += sticky(QUOTED);
      const c = text[i];
      if (c === undefined || c === "\n" || c === "\r") return undefined;
      i++;
      if (c === '"') break;
      // A backslash takes the next character as it is.
      if (text[i] === undefined || text[i] === "\n") return undefined;
      sub += text[i++];
    }
    if (text[i] !== "]") return undefined;
    i++;
    return `${name.toLowerCase()}.${sub}`;
  }

  function parseValue(): string | undefined {
    const ESCAPES: Record<string, string> = { t: "\t", b: "\b", n: "\n", "\\": "\\", '"': '"' };
    let value = "";
    let quoted = false;
    let pendingSpace = "";
    sticky(SPACES);
    for (;;) {
      const run = sticky(quoted ? QUOTED : PLAIN);
      if (run) {
        value += pendingSpace + run;
        pendingSpace = "";
      }
      const c = text[i];
      if (c === undefined) return quoted ? undefined : value;
      if (c === "\r" && text[i + 1] !== "\n") {
        i++;
        value += pendingSpace + c;
        pendingSpace = "";
        continue;
      }
      if (c === "\n" || c === "\r") {
        if (quoted) return undefined;
        endOfLine();
        return value;
      }
      i++;
      if (c === "#" || c === ";") {
        endOfLine();
        return value;
      }
      if (c === " " || c === "\t") {
        pendingSpace += c;
        continue;
      }
      value += pendingSpace;
      pendingSpace = "";
      if (c === '"') {
        quoted = !quoted;
        continue;
      }
      // A backslash: a continuation at the end of the line, else one of git's escapes.
      if (text[i] === "\r" && text[i + 1] === "\n") {
        i += 2;
        continue;
      }
      const e = text[i++];
      if (e === "\n") continue;
      if (e === undefined || !(e in ESCAPES)) return undefined;
      value += ESCAPES[e];
    }
  }
}
