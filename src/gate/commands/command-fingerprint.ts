import { createHash } from "node:crypto";
import { relativeWithin } from "../../util/path-within.js";
import type { RealPathFs } from "../../backends/paths/real-path.js";
import { commandWords } from "./command-policy.js";
import { decisiveItems, itemId, type DecisiveItem } from "./decisive-files.js";

// A remembered "always" for a command is an approval of what it ran then. So it is stored with a
// fingerprint of the files that decide what it runs (decisive-files.ts), and before it approves
// again the fingerprint is taken anew and compared: whoever changed the Makefile (a file tool, an
// approved command, /apply, the user's editor), the next `make build` asks and the dialog says why.
// The files are read through the workspace's own file system (a remote's or a container's), where
// the command runs.

/** Item (a path, or `path#scripts.build`) -> what it held: `sha256:...`, `missing` or `unreadable:CODE`. */
export type CommandFingerprint = Readonly<Record<string, string>>;

export type FingerprintContext = {
  cwd: string;
  /** Real paths of the session roots. */
  roots: readonly string[];
  fs: RealPathFs;
  /** The command's PATH, when the gate knows it (a local workspace). */
  path?: string;
};

const READ_TIMEOUT_MS = 5000;

/** The fingerprint of what `command` would run now, or undefined when the workspace cannot read files. */
export async function commandFingerprint(
  command: string,
  context: FingerprintContext,
): Promise<CommandFingerprint | undefined> {
  const words = commandWords(command);
  const readFile = context.fs.readFile;
  if (!words || !readFile) return undefined;
  const reads = new Map<string, Promise<{ real?: string; bytes?: Buffer; state?: string }>>();
  const read = (path: string) => {
    let pending = reads.get(path);
    if (!pending) {
      pending = readOnce(path, context.fs, readFile);
      reads.set(path, pending);
    }
    return pending;
  };
  const items = await decisiveItems(words, {
    cwd: context.cwd,
    roots: context.roots,
    read: async (path) => (await read(path)).bytes,
    ...(context.path !== undefined ? { path: context.path } : {}),
  });
  const entries = await Promise.all(items.map(async (item) => [itemId(item), describe(item, await read(item.path))]));
  return Object.fromEntries(entries) as CommandFingerprint;
}

/**
 * One file where the command runs: `lstat`, then (a link only) `realpath`, then the bytes of a
 * regular file. Over a remote's or container's link each step is a round trip, so a plain or
 * missing file costs as few as possible; the whole read is capped in time.
 */
async function readOnce(
  path: string,
  fs: RealPathFs,
  readFile: NonNullable<RealPathFs["readFile"]>,
): Promise<{ real?: string; bytes?: Buffer; state?: string }> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" })), READ_TIMEOUT_MS);
    timer.unref();
  });
  const read = async () => {
    const entry = await fs.lstat(path);
    const real = entry.isSymbolicLink() ? await fs.realpath(path) : path;
    try {
      return { real, bytes: await readFile(real) };
    } catch (error) {
      return { real, state: `unreadable:${(error as NodeJS.ErrnoException).code ?? "error"}` };
    }
  };
  try {
    return await Promise.race([read(), timeout]);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { state: code === "ENOENT" || code === "ENOTDIR" ? "missing" : `unreadable:${code ?? "error"}` };
  } finally {
    clearTimeout(timer);
  }
}

/** What an item held: a file's hash (and where its links led), or one JSON entry's hash. */
function describe(item: DecisiveItem, read: { real?: string; bytes?: Buffer; state?: string }): string {
  if (!read.bytes) return read.state ?? "missing";
  if (!item.entry) {
    const via = read.real && read.real !== item.path ? ` ${read.real}` : "";
    return `${hash(read.bytes)}${via}`;
  }
  let value: unknown;
  try {
    value = JSON.parse(read.bytes.toString("utf8"));
  } catch {
    return "unreadable:json";
  }
  for (const key of item.entry) {
    value =
      value && typeof value === "object" && Object.hasOwn(value, key)
        ? (value as Record<string, unknown>)[key]
        : undefined;
  }
  return value === undefined ? "missing" : hash(JSON.stringify(value));
}

function hash(data: string | Buffer): string {
  return `sha256:${createHash("sha256").update(data).digest("hex")}`;
}

/**
 * Why a remembered "always" must ask again, or undefined when it still holds: what changed since it
 * was given, that it was given before fingerprints were kept (asked once, then recorded), or that
 * the files cannot be read. `label` is the approval's label ("Always allow `make build`").
 */
export function staleReason(
  stored: CommandFingerprint | undefined,
  current: CommandFingerprint | undefined,
  label: string,
  roots: readonly string[],
): string | undefined {
  const command = /`([^`]*)`/.exec(label)?.[1] ?? label;
  if (!current)
    return `the files that decide what \`${command}\` runs cannot be read here, so its "always" is not used`;
  if (!stored) {
    if (Object.keys(current).length === 0) return undefined;
    return `\`${command}\` was allowed always before deep-acp recorded the files that decide what it runs; asking once to record them`;
  }
  const changed = [...new Set([...Object.keys(stored), ...Object.keys(current)])]
    .filter((id) => (stored[id] ?? "missing") !== (current[id] ?? "missing"))
    .map((id) => `${shownItem(id, roots)} ${verb(stored[id] ?? "missing", current[id])}`);
  if (changed.length === 0) return undefined;
  const listed = changed.length > 3 ? [...changed.slice(0, 3), `${changed.length - 3} more`] : changed;
  return `${listed.join(", ")} since you allowed \`${command}\` always`;
}

function verb(was: string, now: string | undefined): string {
  // No longer among the files: what made it one (an include line, a script) changed and is listed too.
  if (now === undefined) return "is no longer read";
  if (was === "missing") return "appeared";
  if (now === "missing") return "was removed";
  return "changed";
}

/** `Makefile`, `build/targets.inc`, the `build` script in `package.json`: relative to the root holding it. */
function shownItem(id: string, roots: readonly string[]): string {
  const [path, entry] = id.split("#") as [string, string | undefined];
  const root = roots.find((r) => relativeWithin(r, path) !== undefined);
  const shown = root ? relativeWithin(root, path) || path : path;
  if (!entry) return `\`${shown}\``;
  if (entry.startsWith("scripts.")) return `the \`${entry.slice("scripts.".length)}\` script in \`${shown}\``;
  return `\`${entry}\` in \`${shown}\``;
}

/** Whether the fingerprint records the whole file at `real` (a change to it is then explained at use). */
export function recordsFile(fingerprint: CommandFingerprint | undefined, real: string): boolean {
  return fingerprint !== undefined && Object.hasOwn(fingerprint, real);
}
