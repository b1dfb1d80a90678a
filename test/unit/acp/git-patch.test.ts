import { describe, expect, it } from "vitest";
import { gitPatch } from "../../../src/acp/v2/git-patch.js";

describe("gitPatch", () => {
  it("shows one changed line with three lines of context either side", () => {
    const before = ["a", "b", "c", "d", "e", "f", "g", "h"].join("\n") + "\n";
    const after = before.replace("e\n", "E\n");
    expect(gitPatch("/p/f.txt", before, after)).toBe(
      [
        "diff --git a/p/f.txt b/p/f.txt",
        "--- a/p/f.txt",
        "+++ b/p/f.txt",
        "@@ -2,7 +2,7 @@",
        " b",
        " c",
        " d",
        "-e",
        "+E",
        " f",
        " g",
        " h",
        "",
      ].join("\n"),
    );
  });

  it("writes a new file as added from /dev/null", () => {
    expect(gitPatch("/p/new.txt", null, "x\ny\n")).toBe(
      [
        "diff --git a/p/new.txt b/p/new.txt",
        "new file mode 100644",
        "--- /dev/null",
        "+++ b/p/new.txt",
        "@@ -0,0 +1,2 @@",
        "+x",
        "+y",
        "",
      ].join("\n"),
    );
  });

  it("is only the header when nothing changed", () => {
    expect(gitPatch("/p/f", "same\n", "same\n")).toBe("diff --git a/p/f b/p/f\n--- a/p/f\n+++ b/p/f\n");
  });
});
