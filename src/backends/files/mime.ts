import { open } from "node:fs/promises";
import { extname } from "node:path";

// MIME types decide how `read` answers: text comes back as a line window, everything else as
// bytes the model receives as an image/audio/file block. Extensions we do not know are sniffed.

const BY_EXTENSION: Record<string, string> = {
  // images
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".bmp": "image/bmp",
  ".ico": "image/x-icon",
  ".tif": "image/tiff",
  ".tiff": "image/tiff",
  ".avif": "image/avif",
  ".heic": "image/heic",
  ".svg": "image/svg+xml",
  // documents and archives
  ".pdf": "application/pdf",
  ".doc": "application/msword",
  ".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
  ".xls": "application/vnd.ms-excel",
  ".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
  ".ppt": "application/vnd.ms-powerpoint",
  ".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
  ".zip": "application/zip",
  ".gz": "application/gzip",
  ".tgz": "application/gzip",
  ".tar": "application/x-tar",
  ".bz2": "application/x-bzip2",
  ".xz": "application/x-xz",
  ".7z": "application/x-7z-compressed",
  ".wasm": "application/wasm",
  ".jar": "application/java-archive",
  ".class": "application/java-vm",
  ".so": "application/octet-stream",
  ".o": "application/octet-stream",
  ".a": "application/octet-stream",
  ".dylib": "application/octet-stream",
  ".dll": "application/octet-stream",
  ".exe": "application/octet-stream",
  ".bin": "application/octet-stream",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".otf": "font/otf",
  ".sqlite": "application/vnd.sqlite3",
  ".db": "application/octet-stream",
  // audio
  ".mp3": "audio/mpeg",
  ".wav": "audio/wav",
  ".ogg": "audio/ogg",
  ".oga": "audio/ogg",
  ".opus": "audio/opus",
  ".flac": "audio/flac",
  ".m4a": "audio/mp4",
  ".aac": "audio/aac",
  ".weba": "audio/webm",
  ".mid": "audio/midi",
  ".midi": "audio/midi",
  // video
  ".mp4": "video/mp4",
  ".m4v": "video/mp4",
  ".webm": "video/webm",
  ".mov": "video/quicktime",
  ".avi": "video/x-msvideo",
  ".mkv": "video/x-matroska",
  ".mpeg": "video/mpeg",
  ".mpg": "video/mpeg",
  // text
  ".txt": "text/plain",
  ".md": "text/markdown",
  ".markdown": "text/markdown",
  ".html": "text/html",
  ".htm": "text/html",
  ".css": "text/css",
  ".csv": "text/csv",
  ".tsv": "text/tab-separated-values",
  ".xml": "text/xml",
  ".yaml": "text/yaml",
  ".yml": "text/yaml",
  ".toml": "text/x-toml",
  ".ini": "text/plain",
  ".log": "text/plain",
  ".json": "application/json",
  ".jsonl": "application/json",
  ".ndjson": "application/json",
  ".js": "application/javascript",
  ".mjs": "application/javascript",
  ".cjs": "application/javascript",
  ".jsx": "text/jsx",
  ".ts": "text/x-typescript",
  ".mts": "text/x-typescript",
  ".cts": "text/x-typescript",
  ".tsx": "text/x-typescript",
  ".py": "text/x-python",
  ".rs": "text/x-rust",
  ".go": "text/x-go",
  ".java": "text/x-java",
  ".c": "text/x-c",
  ".h": "text/x-c",
  ".cc": "text/x-c++",
  ".cpp": "text/x-c++",
  ".hpp": "text/x-c++",
  ".rb": "text/x-ruby",
  ".sh": "text/x-shellscript",
  ".bash": "text/x-shellscript",
  ".zsh": "text/x-shellscript",
  ".sql": "text/x-sql",
};

export const OCTET_STREAM = "application/octet-stream";
export const TEXT_PLAIN = "text/plain";

/** How many leading bytes decide "binary" for files whose extension we do not know. */
export const SNIFF_BYTES = 8192;

/** MIME type by extension, or undefined when the extension says nothing (then sniff the bytes). */
export function getMimeType(path: string): string | undefined {
  return BY_EXTENSION[extname(path).toLowerCase()];
}

export function isTextMimeType(mimeType: string): boolean {
  return (
    mimeType.startsWith("text/") ||
    mimeType === "application/json" ||
    mimeType === "application/javascript" ||
    mimeType === "image/svg+xml"
  );
}

/** A NUL byte in the first 8 KiB means binary, the same test git and ripgrep use. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, SNIFF_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** MIME type for a file given its name and (for unknown extensions) its leading bytes. */
export function detectMimeType(path: string, head: Uint8Array): string {
  return getMimeType(path) ?? (looksBinary(head) ? OCTET_STREAM : TEXT_PLAIN);
}

/**
 * Whether the file on disk is binary: by extension when known, else by sniffing its head.
 * `undefined` when the file cannot be opened (missing, a directory, no access).
 */
export async function sniffFileIsBinary(path: string): Promise<boolean | undefined> {
  const known = getMimeType(path);
  if (known) return !isTextMimeType(known);
  let handle;
  try {
    handle = await open(path, "r");
  } catch {
    return undefined;
  }
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return looksBinary(buffer.subarray(0, bytesRead));
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}
