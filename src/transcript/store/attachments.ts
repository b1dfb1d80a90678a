import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { InvalidAttachmentNameError, isNotFound } from "./errors.js";

// Small per-session files next to the log, in `<dir>/<id>.files/<name>` (StateBackend snapshot,
// rewind backups). Each is written atomically (temp + fsync + rename), so a crash leaves the old or
// the new content. Names are flat and never start with "." so they cannot escape the folder and never
// collide with the temp files of writeFileAtomic.

const NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

export function attachmentsDir(dir: string, id: string): string {
  return join(dir, `${id}.files`);
}

export function checkAttachmentName(name: string): void {
  if (typeof name !== "string" || !NAME.test(name)) throw new InvalidAttachmentNameError(String(name));
}

export async function writeAttachmentFile(folder: string, name: string, data: string | Uint8Array): Promise<void> {
  await writeFileAtomic(join(folder, name), data, { mode: 0o600, dirMode: 0o700 });
}

export async function readAttachmentFile(folder: string, name: string): Promise<Buffer | undefined> {
  try {
    return await readFile(join(folder, name));
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export async function listAttachmentFiles(folder: string): Promise<string[]> {
  try {
    const entries = await readdir(folder, { withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && NAME.test(entry.name))
      .map((entry) => entry.name)
      .sort();
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

export async function copyAttachmentFiles(from: string, to: string): Promise<void> {
  for (const name of await listAttachmentFiles(from)) {
    const data = await readAttachmentFile(from, name);
    if (data) await writeAttachmentFile(to, name, data);
  }
}

export async function removeAttachmentFiles(folder: string): Promise<void> {
  await rm(folder, { recursive: true, force: true });
}

export async function removeAttachmentFile(folder: string, name: string): Promise<void> {
  await rm(join(folder, name), { force: true });
}
