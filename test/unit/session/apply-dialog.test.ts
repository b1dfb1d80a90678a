// /apply's dialog never cuts silently: past the bound of names it says how many more, past the bound of
// diffs (in count or size) one line names the changes without a diff.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { dialogContent, type ListedChange } from "../../../src/session/workspace/apply-dialog.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

const added = (path: string, text: string, mode = 0o644): ListedChange => {
  const data = Buffer.from(text);
  return {
    path,
    kind: "added",
    type: "file",
    entry: { type: "file", mode, size: data.length, mtime: 0 },
    snapshot: { sha256: "", size: data.length, data },
  };
};

describe("the /apply dialog", () => {
  it("names up to the bound, then how many more; diffs up to the bound, then the rest by name", async () => {
    const root = await mkdtemp(join(tmpdir(), "deep-acp-apply-dialog-"));
    dirs.push(root);
    const changes = ["a", "b", "c", "d", "e"].map((n) => added(`${n}.txt`, `${n}\n`));
    const content = await dialogContent(root, root, changes, { names: 3, diffs: 2, diffBytes: 1024, keepBytes: 0 });
    const [list, ...rest] = content;
    expect(list).toEqual({
      type: "text",
      text: [
        "- added `a.txt`",
        "- added `b.txt`",
        "- added `c.txt`",
        "- … and 2 more changes not named here (all 5 are applied; `/changes` lists every one)",
      ].join("\n"),
    });
    expect(rest.filter((d) => d.type === "diff").map((d) => (d as { path: string }).path)).toEqual([
      join(root, "a.txt"),
      join(root, "b.txt"),
    ]);
    expect(rest.at(-1)).toEqual({
      type: "text",
      text: "3 more changes not shown as diffs (past 2 diffs or 1 KB), applied as listed above: `c.txt`, `d.txt`, `e.txt`",
    });
  });

  it("stops the diffs at the size bound and marks the bits the host does not get", async () => {
    const root = await mkdtemp(join(tmpdir(), "deep-acp-apply-dialog-"));
    dirs.push(root);
    const changes = [
      added("big.txt", "x".repeat(900)),
      added("next.txt", "y".repeat(900)),
      added("s.sh", "#!/bin/sh\n", 0o4755),
    ];
    const content = await dialogContent(root, root, changes, { names: 10, diffs: 10, diffBytes: 1024, keepBytes: 0 });
    expect(content.filter((d) => d.type === "diff")).toHaveLength(1);
    expect((content[0] as { text: string }).text).toContain(
      "- added `s.sh` — setuid bit removed on the host (4755 -> 0755)",
    );
    expect((content[0] as { text: string }).text).toContain("1 file asks for setuid, setgid or sticky bits");
    expect((content.at(-1) as { text: string }).text).toMatch(
      /^2 more changes not shown as diffs .*`next\.txt`, `s\.sh`$/,
    );
  });
});
