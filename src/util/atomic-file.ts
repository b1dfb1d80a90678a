import { chmod, mkdir, open, rename, rm } from "node:fs/promises";
import { dirname, join, basename } from "node:path";
import { randomBytes } from "node:crypto";

export type AtomicWriteOptions = {
  /** File mode; default 0o600 (state files hold approvals and tokens). */
  mode?: number;
  /** Mode for directories created on the way; default 0o700. */
  dirMode?: number;
};

/**
 * Writes a file so that readers see either the old or the new content, never a torn one:
 * temp file in the same directory, fsync, rename. Parent directories are created with `dirMode`.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const mode = options.mode ?? 0o600;
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: options.dirMode ?? 0o700 });
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString("hex")}.tmp`);
  const handle = await open(temp, "wx", mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await chmod(temp, mode);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Creates a private directory (0700), tightening the mode if it already exists. */
export async function ensurePrivateDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 });
  await chmod(path, 0o700);
}
