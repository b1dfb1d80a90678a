// Held paths (backends/paths/held-*.ts): what decides what runs on the host is recorded before a
// command and put back after it, whatever the command did to the way there: a renamed parent, a
// link replaced by a folder, a missing hooks folder created, a config rewritten in place.
import { existsSync } from "node:fs";
import { lstat, mkdir, mkdtemp, readFile, readlink, realpath, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { anchorFolders, holdPaths } from "../../../../src/backends/paths/held-record.js";
import { restoreHeld } from "../../../../src/backends/paths/held-restore.js";

let root: string;
const p = (name: string) => join(root, name);
beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-held-")));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("held paths", () => {
  it("a renamed parent is renamed back and the new folder moved aside", async () => {
    await mkdir(p("tools/hooks"), { recursive: true });
    await writeFile(p("tools/hooks/pre-commit"), "#!/bin/sh\necho good\n");
    const held = await holdPaths([root], [{ path: p("tools/hooks"), reason: "git's hooks folder" }]);
    expect(anchorFolders([root], [p("tools/hooks")])).toEqual([p("tools")]);
    await rename(p("tools"), p("tools.old"));
    await mkdir(p("tools/hooks"), { recursive: true });
    await writeFile(p("tools/hooks/pre-commit"), "evil\n");
    const notes = await restoreHeld(held);
    expect(await readFile(p("tools/hooks/pre-commit"), "utf8")).toBe("#!/bin/sh\necho good\n");
    expect(await readFile(p("tools.deep-acp-moved/hooks/pre-commit"), "utf8")).toBe("evil\n");
    expect(existsSync(p("tools.old"))).toBe(false);
    expect(notes.join("\n")).toContain(`the command had moved it to ${p("tools.old")}`);
    expect(await restoreHeld(held)).toEqual([]);
  });

  it("a linked .git replaced by a real folder is linked again", async () => {
    await mkdir(p("gitstore/hooks"), { recursive: true });
    await symlink("gitstore", p(".git"));
    const held = await holdPaths([root], [{ path: p(".git"), reason: "git's folder" }]);
    await rm(p(".git"));
    await mkdir(p(".git/hooks"), { recursive: true });
    await writeFile(p(".git/hooks/pre-commit"), "evil\n");
    const notes = await restoreHeld(held);
    expect(await readlink(p(".git"))).toBe("gitstore");
    expect(existsSync(p(".git.deep-acp-moved/hooks/pre-commit"))).toBe(true);
    expect(notes).toEqual([expect.stringContaining(`restored the link ${p(".git")} -> gitstore`)]);
  });

  it("a missing hooks folder the command created is moved aside; a file rewritten in place gets its bytes back", async () => {
    await writeFile(p("shared.gitconfig"), "[user]\n");
    const held = await holdPaths(
      [root],
      [
        { path: p(".githooks"), reason: "core.hooksPath" },
        { path: p("shared.gitconfig"), reason: "an include" },
      ],
    );
    await mkdir(p(".githooks"));
    await writeFile(p(".githooks/pre-commit"), "evil\n");
    await writeFile(p("shared.gitconfig"), "[core]\n\tfsmonitor = evil\n");
    const notes = await restoreHeld(held);
    expect(existsSync(p(".githooks"))).toBe(false);
    expect((await lstat(p(".githooks.deep-acp-moved"))).isDirectory()).toBe(true);
    expect(await readFile(p("shared.gitconfig"), "utf8")).toBe("[user]\n");
    expect(notes).toHaveLength(2);
  });

  it("ordinary changes beside the held paths are left alone", async () => {
    await mkdir(p("tools/hooks"), { recursive: true });
    const held = await holdPaths([root], [{ path: p("tools/hooks"), reason: "hooks" }]);
    await writeFile(p("tools/build.sh"), "echo build\n");
    await writeFile(p("main.ts"), "x\n");
    expect(await restoreHeld(held)).toEqual([]);
    expect(existsSync(p("tools/build.sh"))).toBe(true);
  });
});

describe("held folder contents (a surface no mount keeps read-only)", () => {
  it("a hook written into the folder goes aside, a changed file gets its bytes back, a removed one comes back", async () => {
    await mkdir(p("scripts"));
    await writeFile(p("scripts/build.sh"), "echo build\n");
    await writeFile(p("scripts/post-checkout"), "good\n");
    const held = await holdPaths([root], [{ path: p("scripts"), reason: "core.hooksPath", contents: true }]);
    await writeFile(p("scripts/pre-commit"), "evil\n");
    await writeFile(p("scripts/build.sh"), "evil\n");
    await rm(p("scripts/post-checkout"));
    const notes = await restoreHeld(held);
    expect(existsSync(p("scripts/pre-commit"))).toBe(false);
    expect(await readFile(p("scripts/pre-commit.deep-acp-moved"), "utf8")).toBe("evil\n");
    expect(await readFile(p("scripts/build.sh"), "utf8")).toBe("echo build\n");
    expect(await readFile(p("scripts/post-checkout"), "utf8")).toBe("good\n");
    expect(notes).toHaveLength(3);
    expect(await restoreHeld(held)).toEqual([]);
  });

  it("without `contents` a folder is held by identity only: what is written inside stays", async () => {
    await mkdir(p("gitdir"));
    const held = await holdPaths([root], [{ path: p("gitdir"), reason: "git's folder" }]);
    await writeFile(p("gitdir/index.lock"), "");
    expect(await restoreHeld(held)).toEqual([]);
  });
});
