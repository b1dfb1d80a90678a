import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";
import { nodeFsOps, type FsOps } from "../../../src/backends/paths/path-guard.js";

// Virtual mode must keep every operation inside rootDir, whatever path or symlink trick is used.

let top: string;
let root: string;
let outside: string;

beforeEach(async () => {
  top = await mkdtemp(join(tmpdir(), "deep-acp-escape-"));
  root = join(top, "root");
  outside = join(top, "outside");
  await mkdir(root);
  await mkdir(outside);
  await writeFile(join(outside, "secret.txt"), "TOP SECRET\n");
});
afterEach(async () => {
  await rm(top, { recursive: true, force: true });
});

const virtual = (fs?: FsOps) => createFilesystemBackend({ rootDir: root, virtualMode: true, ...(fs ? { fs } : {}) });

describe("virtual mode path confinement", () => {
  it("refuses .. segments for every operation", async () => {
    const b = virtual();
    const escape = "/../outside/secret.txt";
    expect((await b.read(escape)).error).toMatch(/Path traversal not allowed/);
    expect((await b.write("/a/../../outside/new.txt", "x")).error).toMatch(/Path traversal not allowed/);
    expect((await b.edit(escape, "TOP", "x")).error).toMatch(/Path traversal not allowed/);
    expect((await b.ls("/..")).error).toMatch(/Path traversal not allowed/);
    expect((await b.delete(escape)).error).toMatch(/Path traversal not allowed/);
    expect((await b.grep("SECRET", "/..")).error).toMatch(/Path traversal not allowed/);
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("refuses ~", async () => {
    const b = virtual();
    expect((await b.read("~/secret.txt")).error).toMatch(/Path traversal not allowed/);
    expect((await b.write("/~/x.txt", "x")).error).toMatch(/Path traversal not allowed/);
  });

  it("maps absolute host paths under the root instead of reaching them", async () => {
    const b = virtual();
    const hostPath = join(outside, "secret.txt");
    expect((await b.read(hostPath)).error).toMatch(/not found/);
    const written = await b.write(join(outside, "planted.txt"), "x");
    expect(written.path).toBe(join(outside, "planted.txt"));
    expect(existsSync(join(outside, "planted.txt"))).toBe(false);
    expect(existsSync(join(root, outside, "planted.txt"))).toBe(true);
  });

  it("refuses symlinks that lead out of the root, without touching their targets", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    await symlink(outside, join(root, "linkdir"));
    const b = virtual();
    expect((await b.read("/link.txt")).error).toMatch(/outside root/);
    expect((await b.readRaw("/link.txt")).error).toMatch(/outside root/);
    expect((await b.edit("/link.txt", "TOP", "PWNED")).error).toMatch(/outside root/);
    expect((await b.write("/link.txt", "PWNED")).error).toMatch(/outside root/);
    expect((await b.ls("/linkdir")).error).toMatch(/outside root/);
    expect((await b.write("/linkdir/new.txt", "x")).error).toMatch(/outside root/);
    expect((await b.read("/linkdir/secret.txt")).error).toMatch(/outside root/);
    expect((await b.grep("SECRET", "/")).matches).toEqual([]);
    expect((await b.glob("**/*")).files).toEqual([]);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
    expect(existsSync(join(outside, "new.txt"))).toBe(false);
    // Deleting the link removes the link, never what it points to.
    expect((await b.delete("/linkdir")).error).toBeUndefined();
    expect(existsSync(join(outside, "secret.txt"))).toBe(true);
  });

  it("follows symlinks that stay inside the root", async () => {
    await writeFile(join(root, "real.txt"), "inside\n");
    await symlink(join(root, "real.txt"), join(root, "alias.txt"));
    expect((await virtual().read("/alias.txt")).content).toBe("inside");
  });

  it("refuses a dangling symlink whose target would be created outside", async () => {
    await symlink(join(outside, "created-by-write.txt"), join(root, "dangling.txt"));
    expect((await virtual().write("/dangling.txt", "x")).error).toMatch(/Symlinks are not allowed/);
    expect(existsSync(join(outside, "created-by-write.txt"))).toBe(false);
  });

  it("refuses a file swapped for a symlink after the realpath check", async () => {
    await writeFile(join(root, "victim.txt"), "harmless\n");
    let armed = true;
    const swapping: FsOps = {
      ...nodeFsOps,
      realpath: async (p) => {
        const real = await nodeFsOps.realpath(p);
        if (armed && p.endsWith("victim.txt")) {
          armed = false;
          await rm(join(root, "victim.txt"));
          await symlink(join(outside, "secret.txt"), join(root, "victim.txt"));
        }
        return real;
      },
    };
    const read = await virtual(swapping).read("/victim.txt");
    expect(read.content).toBeUndefined();
    expect(read.error).toMatch(/Symlinks are not allowed/);

    await rm(join(root, "victim.txt"));
    await writeFile(join(root, "victim.txt"), "harmless\n");
    armed = true;
    const write = await virtual(swapping).write("/victim.txt", "PWNED");
    expect(write.error).toMatch(/Symlinks are not allowed/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("refuses a parent directory swapped for a symlink after the check", async () => {
    await mkdir(join(root, "dir"));
    await writeFile(join(root, "dir", "secret.txt"), "harmless\n");
    let armed = true;
    const swapping: FsOps = {
      ...nodeFsOps,
      realpath: async (p) => {
        const real = await nodeFsOps.realpath(p);
        if (armed && p.endsWith(join("dir", "secret.txt"))) {
          armed = false;
          await rename(join(root, "dir"), join(root, "dir-moved"));
          await symlink(outside, join(root, "dir"));
        }
        return real;
      },
    };
    const backend = virtual(swapping);
    const read = await backend.read("/dir/secret.txt");
    expect(read.content).toBeUndefined();
    expect(read.error).toMatch(/outside root/);
    armed = true;
    await rm(join(root, "dir"));
    await rename(join(root, "dir-moved"), join(root, "dir"));
    const edit = await backend.edit("/dir/secret.txt", "harmless", "PWNED");
    expect(edit.error).toMatch(/outside root/);
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("TOP SECRET\n");
  });

  it("gives clean errors for NUL bytes and over-long names", async () => {
    for (const b of [virtual(), createFilesystemBackend({ rootDir: root })]) {
      expect((await b.read("/a\0b")).error).toMatch(/NUL byte/);
      expect((await b.write(`${root}/x\0y`, "x")).error).toMatch(/NUL byte/);
      expect((await b.read(`/${"a".repeat(300)}`)).error).toMatch(/File name too long/);
      expect((await b.write(`/${"a".repeat(300)}.txt`, "x")).error).toMatch(/File name too long/);
      expect((await b.ls(`/${"d/".repeat(3000)}`)).error).toMatch(/Path too long/);
      const [upload] = await b.uploadFiles([[`/${"b".repeat(400)}`, new Uint8Array([1])]]);
      expect(upload!.error).toBe("invalid_path");
    }
  });

  it("deleting / in virtual mode empties the root but keeps it", async () => {
    const b = virtual();
    await b.write("/a/b.txt", "x");
    await b.write("/c.txt", "y");
    expect((await b.delete("/")).error).toBeUndefined();
    expect((await b.ls("/")).files).toEqual([]);
    expect(existsSync(root)).toBe(true);
  });
});

describe("real mode", () => {
  it("uses absolute paths as they are and resolves relative ones against the root", async () => {
    const b = createFilesystemBackend({ rootDir: root });
    expect((await b.read(join(outside, "secret.txt"))).content).toBe("TOP SECRET");
    await b.write("rel/file.txt", "r");
    expect(await readFile(join(root, "rel", "file.txt"), "utf8")).toBe("r");
  });

  it("follows symlinks (the user's own files)", async () => {
    await symlink(join(outside, "secret.txt"), join(root, "link.txt"));
    const b = createFilesystemBackend({ rootDir: root });
    expect((await b.read(join(root, "link.txt"))).content).toBe("TOP SECRET");
    await b.edit(join(root, "link.txt"), "TOP", "NOT");
    expect(await readFile(join(outside, "secret.txt"), "utf8")).toBe("NOT SECRET\n");
  });

  it("refuses to delete /", async () => {
    expect((await createFilesystemBackend({ rootDir: root }).delete("/")).error).toMatch(/Refusing/);
  });
});
