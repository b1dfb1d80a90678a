import { randomBytes } from "node:crypto";
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { link, open, readFile, rm } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { SessionExistsError, SessionNotFoundError, isNotFound } from "./errors.js";

// File operations on one session log. Logs are only ever appended to (O_APPEND, one write per
// line) or replaced whole (temp file + rename / link), so a reader never sees a half-replaced file.
//
// Durability trade-off: appends are not fsync'ed. A write() that returned is in the kernel's page
// cache, which survives the death of our process (SIGKILL, crash, OOM kill, editor closing the pipe)
// — the failures the issue is about. Only a kernel panic or power loss can drop it, and an fsync per
// streamed event would cost milliseconds each on many disks (and is not even a real flush on macOS
// without F_FULLFSYNC). Whole-file replacements do fsync before the rename, because a rename that
// reaches the disk before the data could swap good history for an empty file after a power cut.

const FILE_MODE = 0o600;
const NEWLINE = 0x0a;

export function logPath(dir: string, id: string): string {
  return join(dir, `${id}.jsonl`);
}

/** Creates a log holding `text` (the header line); SessionExistsError if it already exists. */
export async function createLog(path: string, id: string, text: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, "wx", FILE_MODE);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") throw new SessionExistsError(id);
    throw error;
  }
  try {
    await writeAll(handle, Buffer.from(text));
  } finally {
    await handle.close();
  }
}

/**
 * Appends `text` (one or more complete lines) with a single write. If the log ends in a torn line
 * (a writer died mid-write), a "\n" is prepended in the same write so our line starts on its own.
 * Never creates the file: appending to a deleted session must fail, not leave a headerless log.
 */
export async function appendToLog(path: string, id: string, text: string): Promise<void> {
  let handle;
  try {
    handle = await open(path, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if (isNotFound(error)) throw new SessionNotFoundError(id);
    throw error;
  }
  try {
    const { size } = await handle.stat();
    let data = Buffer.from(text);
    if (size > 0) {
      const last = Buffer.alloc(1);
      await handle.read(last, 0, 1, size - 1);
      if (last[0] !== NEWLINE) data = Buffer.concat([Buffer.from("\n"), data]);
    }
    await writeAll(handle, data);
  } finally {
    await handle.close();
  }
}

/** appendToLog without waiting: a handful of small syscalls, so the line is in the page cache at return. */
export function appendToLogSync(path: string, id: string, text: string): void {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDWR | constants.O_APPEND);
  } catch (error) {
    if (isNotFound(error)) throw new SessionNotFoundError(id);
    throw error;
  }
  try {
    const { size } = fstatSync(fd);
    let data = Buffer.from(text);
    if (size > 0) {
      const last = Buffer.alloc(1);
      readSync(fd, last, 0, 1, size - 1);
      if (last[0] !== NEWLINE) data = Buffer.concat([Buffer.from("\n"), data]);
    }
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
  } finally {
    closeSync(fd);
  }
}

async function writeAll(handle: Awaited<ReturnType<typeof open>>, data: Buffer): Promise<void> {
  // A regular-file write is complete unless the disk fills up or a signal lands mid-copy; the loop
  // only matters then, and the rest of the line still lands (or the reader skips the torn line).
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}

export async function readLog(path: string, id: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) throw new SessionNotFoundError(id);
    throw error;
  }
}

async function writeTemp(path: string, text: string): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", FILE_MODE);
  try {
    await writeAll(handle, Buffer.from(text));
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

/**
 * Publishes a complete new log (fork): written to a temp file and hard-linked into place, so the
 * session appears whole or not at all, and an existing session is never overwritten (link fails with
 * EEXIST). Filesystems without hard links fall back to an exclusive create plus one write.
 */
export async function publishNewLog(path: string, id: string, text: string): Promise<void> {
  const temp = await writeTemp(path, text);
  try {
    await link(temp, path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw new SessionExistsError(id);
    if (code !== "EPERM" && code !== "ENOTSUP" && code !== "ENOSYS" && code !== "EOPNOTSUPP") throw error;
    await createLog(path, id, text);
  } finally {
    await rm(temp, { force: true });
  }
}

/** Replaces an existing log whole (rewind, truncation); readers see the old or the new file. */
export async function replaceLog(path: string, text: string): Promise<void> {
  await writeFileAtomic(path, text, { mode: FILE_MODE });
}
