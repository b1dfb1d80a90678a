import { describe, expect, it } from "vitest";
import { displayPath } from "../../../src/tools/files/paths.js";
import {
  isBelow,
  isBelowPosix,
  isWithin,
  isWithinAny,
  isWithinPosix,
  relativeWithin,
  relativeWithinPosix,
} from "../../../src/util/path-within.js";

describe("the one path-containment test", () => {
  it("takes a folder named ..x for the child it is, not for a way out", () => {
    expect(isWithin("/work/p/..x/notes.md", "/work/p")).toBe(true);
    expect(relativeWithin("/work/p", "/work/p/..x/notes.md")).toBe("..x/notes.md");
    expect(relativeWithin("/work/p", "/work/p/..")).toBeUndefined();
    expect(relativeWithin("/work/p", "/work/other")).toBeUndefined();
    // A tool call's title shows it under the project, as any other file there.
    expect(displayPath("/work/p/..x/notes.md", ["/work/p"])).toBe("..x/notes.md");
  });

  it("tells a sibling with the same prefix from a child, and takes the root and / as containing", () => {
    expect(isWithin("/work/project-b/a", "/work/project")).toBe(false);
    expect(isWithin("/work/project", "/work/project")).toBe(true);
    expect(relativeWithin("/work/project", "/work/project")).toBe("");
    expect(isWithin("/etc/passwd", "/")).toBe(true);
    expect(isWithin("/work/p/a", "/work/p/")).toBe(true);
    expect(isWithinAny("/b/x", ["/a", "/b"])).toBe(true);
    expect(isWithinAny("/c/x", ["/a", "/b"])).toBe(false);
  });
});

describe("the posix and strictly-below forms", () => {
  it("treat container and key paths with / whatever the host separator", () => {
    expect(isWithinPosix("/workspace/..x/a", "/workspace")).toBe(true);
    expect(isWithinPosix("/workspace-b/a", "/workspace")).toBe(false);
    expect(isWithinPosix("/workspace", "/workspace")).toBe(true);
    expect(isWithinPosix("/etc/passwd", "/")).toBe(true);
    expect(relativeWithinPosix("/workspace", "/workspace/..hooks/pre-commit")).toBe("..hooks/pre-commit");
    expect(relativeWithinPosix("/workspace", "/workspace")).toBe("");
    expect(relativeWithinPosix("/workspace", "/workspace/../etc")).toBeUndefined();
    expect(relativeWithinPosix("/workspace", "/other")).toBeUndefined();
  });

  it("take the root itself as not below it", () => {
    expect(isBelow("/work/p", "/work/p")).toBe(false);
    expect(isBelow("/work/p/a", "/work/p")).toBe(true);
    expect(isBelow("/work/pa", "/work/p")).toBe(false);
    expect(isBelowPosix("/", "/")).toBe(false);
    expect(isBelowPosix("/a", "/")).toBe(true);
    expect(isBelowPosix("/ab", "/a")).toBe(false);
    expect(isBelowPosix("/a/b", "/a")).toBe(true);
  });
});
