import { constants, type Stats } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { FsOpError, shownPath } from "./fs-errors.js";
import { createLineWindowCollector } from "./line-window.js";
import { SNIFF_BYTES } from "./mime.js";

// Low-level helpers the filesystem backend uses on open file handles.

// O_NONBLOCK changes nothing for regular files but keeps opening a FIFO from blocking forever; the
// fstat that follows then refuses it.
export const READ_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;
export const WRITE_FLAGS = constants.O_RDWR | constants.O_NONBLOCK;

export function assertRegularFile(info: Stats, display: string): void {
  if (info.isDirectory()) throw new FsOpError(`'${shownPath(display)}' is a directory`, "is_directory");
  if (!info.isFile()) throw new FsOpError(`'${shownPath(display)}' is not a regular file`, "invalid_path");
}

/** The first bytes of an open file, enough to sniff its MIME type. */
export async function readHead(handle: FileHandle, size: number): Promise<Buffer> {
  const buffer = Buffer.alloc(Math.min(size, SNIFF_BYTES));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead);
}

/** Replaces an open file's content in place (same inode, so mode, owner and hard links survive). */
export async function overwrite(handle: FileHandle, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) {
    const { bytesWritten } = await handle.write(data, written, data.length - written, written);
    written += bytesWritten;
  }
  await handle.truncate(data.length);
}

export function toBytes(buffer: Buffer): Uint8Array {
  return new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/** A line window of a file too large to load whole, read as a stream. */
export async function streamWindow(handle: FileHandle, offset?: number, limit?: number) {
  const collector = createLineWindowCollector(offset, limit);
  const stream = handle.createReadStream({ encoding: "utf8", start: 0, autoClose: false });
  for await (const chunk of stream) collector.push(chunk as string);
  return collector.finish();
}
