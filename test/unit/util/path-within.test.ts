import { describe, expect, it } from "vitest";
import { displayPath } from "../../../src/tools/paths.js";
import { isWithin, isWithinAny, relativeWithin } from "../../../src/util/path-within.js";

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
