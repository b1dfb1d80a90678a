import type { FileOperationError } from "../protocol.js";
import { fileNotFoundMessage } from "./edit-semantics.js";

// Backends never throw for ordinary failures; internally they throw FsOpError and the public method
// turns it into `{ error }` (or a FileOperationError code for upload/download).

export class FsOpError extends Error {
  constructor(
    message: string,
    readonly code: FileOperationError,
    /** The errno code (ENOENT, EEXIST, ...) when this came from a system call. */
    readonly errno?: string,
  ) {
    super(message);
    this.name = "FsOpError";
  }
}

/** Paths in messages are capped so a 100 kB hostile name does not flood the model's context. */
export function shownPath(path: string): string {
  return path.length > 300 ? `${path.slice(0, 150)}…${path.slice(-100)}` : path;
}

/** Converts anything thrown by node:fs (or an FsOpError) into an FsOpError with a readable message. */
export function toFsOpError(error: unknown, path: string): FsOpError {
  if (error instanceof FsOpError) return error;
  const converted = describe(error, path);
  const errno = (error as NodeJS.ErrnoException | undefined)?.code;
  return errno ? new FsOpError(converted.message, converted.code, errno) : converted;
}

function describe(error: unknown, path: string): FsOpError {
  const p = shownPath(path);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case "ENOENT":
      return new FsOpError(fileNotFoundMessage(p), "file_not_found");
    case "ENOTDIR":
      return new FsOpError(`Not a directory: a parent of '${p}' is a file`, "invalid_path");
    case "EACCES":
    case "EPERM":
      return new FsOpError(`Permission denied: '${p}'`, "permission_denied");
    case "EROFS":
      return new FsOpError(`Read-only file system: '${p}'`, "permission_denied");
    case "EISDIR":
      return new FsOpError(`'${p}' is a directory`, "is_directory");
    case "ENAMETOOLONG":
      return new FsOpError(`File name too long: '${p}'`, "invalid_path");
    case "ELOOP":
      return new FsOpError(`Symlinks are not allowed: '${p}'`, "invalid_path");
    case "EEXIST":
      return new FsOpError(`'${p}' already exists`, "invalid_path");
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return new FsOpError(`${message} ('${p}')`, "invalid_path");
    }
  }
}
