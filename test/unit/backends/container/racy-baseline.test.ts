// Times inside a container are whole seconds: a file written on the host in the second the copy
// began, then changed in the container within that second at the same size, keeps its time. /apply
// must still find the change (it was lost: the end-to-end /apply test failed when the two writes
// fell in one second).
import { mkdtemp, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { packTree } from "../../../../src/backends/container/project-archive.js";
import { applyToHost, diffTree, type TreeEntry } from "../../../../src/backends/container/workspace-changes.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function baselineOf(root: string) {
  const { stream, done } = await packTree(root, { prefix: "" });
  stream.resume();
  return done;
}

const file = (content: string, mtime: number): TreeEntry => ({
  type: "file",
  mode: 0o644,
  size: Buffer.byteLength(content),
  mtime,
  content: async () => Buffer.from(content),
});

describe("copy-mode baseline", () => {
  it("finds a same-size change made in the second of the copy, and trusts older times", async () => {
    const root = await mkdtemp(join(tmpdir(), "deep-acp-racy-"));
    dirs.push(root);
    await writeFile(join(root, "fresh.txt"), "one\n", { mode: 0o644 });
    // "In the second of the copy, or later": a time ahead of the clock keeps it so however slow this run is.
    const fresh = Math.floor(Date.now() / 1000) + 5;
    await utimes(join(root, "fresh.txt"), fresh, fresh);
    await writeFile(join(root, "old.txt"), "old\n", { mode: 0o644 });
    const past = new Date("2020-01-02T03:04:05Z");
    await utimes(join(root, "old.txt"), past, past);
    const baseline = await baselineOf(root);
    const changes = await diffTree(
      baseline,
      new Map([
        // Changed in the container within the same second: same size, same mode, same time.
        ["fresh.txt", file("two\n", fresh)],
        // Same size, mode and time as its baseline: unchanged without reading it.
        ["old.txt", { ...file("xxx\n", past.getTime() / 1000), content: undefined }],
      ]),
    );
    expect(changes.map((c) => [c.path, c.kind])).toEqual([["fresh.txt", "modified"]]);
  });

  it("applies a change whose time is the second of the apply with no trusted time, so a later same-second change is found", async () => {
    const root = await mkdtemp(join(tmpdir(), "deep-acp-racy-"));
    dirs.push(root);
    await writeFile(join(root, "a.txt"), "one\n", { mode: 0o644 });
    const now = Math.floor(Date.now() / 1000) + 5;
    const applied = await applyToHost(root, "/project", {
      path: "a.txt",
      kind: "modified",
      type: "file",
      entry: file("two\n", now),
    });
    const changes = await diffTree({ "a.txt": applied! }, new Map([["a.txt", file("six\n", now)]]));
    expect(changes.map((c) => [c.path, c.kind])).toEqual([["a.txt", "modified"]]);
  });
});
