import { FsOpError, shownPath } from "../files/fs-errors.js";
import { checkPathText } from "../paths/path-guard.js";
import { isBelowPosix } from "../../util/path-within.js";

// Keys of in-memory trees and route-relative paths: "/"-rooted, no empty or "." segments, and no
// ".." or "~" (a virtual tree has nothing above its root).

/** Canonical "/"-rooted key for a virtual path; throws FsOpError for unusable input. */
export function virtualKey(path: string): string {
  checkPathText(path);
  const segments = path.split("/").filter((s) => s.length > 0 && s !== ".");
  if (segments.includes("..") || segments.includes("~") || path.startsWith("~")) {
    throw new FsOpError(`Path traversal not allowed: '${shownPath(path)}'`, "invalid_path");
  }
  return "/" + segments.join("/");
}

/** "/a/b" is under "/a" and under "/"; "/ab" is not under "/a". */
export function isUnderKey(key: string, dir: string): boolean {
  return isBelowPosix(key, dir);
}

export function parentKey(key: string): string {
  const index = key.lastIndexOf("/");
  return index <= 0 ? "/" : key.slice(0, index);
}

export function joinKey(dir: string, name: string): string {
  return dir === "/" ? `/${name}` : `${dir}/${name}`;
}
