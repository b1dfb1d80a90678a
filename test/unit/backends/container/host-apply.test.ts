// /apply's host side (backends/paths/host-apply.ts): no host link is followed to read or to write,
// and modes lose their setuid, setgid and sticky bits.
import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  hostRootOf,
  readHostEntry,
  removeHostEntry,
  writeHostFile,
} from "../../../../src/backends/paths/host-apply.js";

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});
async function tree() {
  const base = await mkdtemp(join(tmpdir(), "deep-acp-host-apply-"));
  dirs.push(base);
  const root = join(base, "project");
  const away = join(base, "away");
  await mkdir(root);
  await mkdir(away);
  await writeFile(join(away, "secret.txt"), "SECRET\n");
  return { root: await hostRootOf(root), away };
}

describe("host apply", () => {
  it("reads a link as a link and a file behind a linked folder not at all", async () => {
    const { root, away } = await tree();
    await symlink(join(away, "secret.txt"), join(root, "notes.txt"));
    await symlink(away, join(root, "docs"));
    expect(await readHostEntry(root, "notes.txt", 1024)).toEqual({
      kind: "link",
      target: join(away, "secret.txt"),
    });
    expect(await readHostEntry(root, "docs/secret.txt", 1024)).toEqual({ kind: "behind-link", via: "docs" });
  });

  it("refuses to write or delete through a linked folder, and replaces a linked file without touching its target", async () => {
    const { root, away } = await tree();
    await symlink(away, join(root, "docs"));
    await expect(writeHostFile(root, "docs/secret.txt", Buffer.from("x"), 0o644)).rejects.toThrow(
      /docs is a link on the host: not followed/,
    );
    await expect(removeHostEntry(root, "docs/secret.txt")).rejects.toThrow(/not followed/);
    await symlink(join(away, "secret.txt"), join(root, "notes.txt"));
    await writeHostFile(root, "notes.txt", Buffer.from("mine\n"), 0o644);
    expect((await lstat(join(root, "notes.txt"))).isFile()).toBe(true);
    expect(await readFile(join(away, "secret.txt"), "utf8")).toBe("SECRET\n");
  });

  it("writes a mode without setuid, setgid and sticky bits", async () => {
    const { root } = await tree();
    await writeHostFile(root, "bin/tool.sh", Buffer.from("#!/bin/sh\n"), 0o7755);
    expect((await stat(join(root, "bin", "tool.sh"))).mode & 0o7777).toBe(0o755);
  });
});
