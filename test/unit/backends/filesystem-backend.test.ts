import { execFileSync } from "node:child_process";
import { chmod, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFilesystemBackend } from "../../../src/backends/local/filesystem-backend.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "deep-acp-fs-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe.each([
  ["ripgrep", undefined],
  ["JS walk", false],
] as const)("filesystem backend (%s)", (_label, ripgrep) => {
  const backend = (maxFileSizeMb?: number) =>
    createFilesystemBackend({ rootDir: dir, ripgrep, ...(maxFileSizeMb ? { maxFileSizeMb } : {}) });

  it("streams a window out of a file larger than the size limit", async () => {
    const lines = Array.from({ length: 5000 }, (_, i) => `row ${i}`);
    await writeFile(join(dir, "big.log"), lines.join("\n") + "\n");
    const b = backend(0.01);
    expect(await b.read(join(dir, "big.log"), 4000, 2)).toMatchObject({
      content: "row 4000\nrow 4001",
      totalLines: 5000,
    });
    expect((await b.read(join(dir, "big.log"), 6000)).error).toBe("Line offset 6000 exceeds file length (5000 lines)");
    expect((await b.edit(join(dir, "big.log"), "row 1\n", "x")).error).toMatch(/too large to edit/);
    // Large files are still searched (streamed by the JS search).
    expect((await b.grep("row 4000", dir)).matches).toEqual([
      { path: join(dir, "big.log"), line: 4001, text: "row 4000" },
    ]);
    await writeFile(join(dir, "big.png"), Buffer.alloc(20_000, 1));
    expect((await b.read(join(dir, "big.png"))).error).toMatch(/too large to read/);
  });

  it("honours the repository's .git/info/exclude", async () => {
    await mkdir(join(dir, ".git", "info"), { recursive: true });
    await writeFile(join(dir, ".git", "info", "exclude"), "local-notes.txt\n");
    await writeFile(join(dir, "local-notes.txt"), "needle\n");
    await writeFile(join(dir, "shared.txt"), "needle\n");
    for (const globWith of ["walk", "ripgrep"] as const) {
      const b = createFilesystemBackend({ rootDir: dir, ripgrep, globWith });
      expect((await b.grep("needle", dir)).matches!.map((m) => m.path)).toEqual([join(dir, "shared.txt")]);
      expect((await b.glob("*.txt", dir)).files!.map((f) => f.path)).toEqual([join(dir, "shared.txt")]);
    }
  });

  it("refuses FIFOs and devices instead of hanging on them", async () => {
    execFileSync("mkfifo", [join(dir, "pipe")]);
    expect((await backend().read(join(dir, "pipe"))).error).toMatch(/not a regular file/);
    expect((await backend().edit(join(dir, "pipe"), "a", "b")).error).toMatch(/not a regular file/);
    expect((await backend().read("/dev/zero")).error).toMatch(/not a regular file/);
  });

  it("clips very long matching lines", async () => {
    await writeFile(join(dir, "bundle.js"), `${"x".repeat(10_000)}NEEDLE${"y".repeat(10_000)}\n`);
    const [match] = (await backend().grep("NEEDLE", dir)).matches!;
    expect(match!.text.startsWith("x".repeat(2000))).toBe(true);
    expect(match!.text).toMatch(/\[\.\.\. 18006 more characters\]$/);
  });

  it("keeps the file mode of an edited or overwritten file", async () => {
    const script = join(dir, "run.sh");
    await writeFile(script, "#!/bin/sh\necho one\n");
    await chmod(script, 0o755);
    await backend().edit(script, "one", "two");
    await backend().write(script, "#!/bin/sh\necho three\n");
    expect((await stat(script)).mode & 0o777).toBe(0o755);
    expect(await readFile(script, "utf8")).toBe("#!/bin/sh\necho three\n");
  });

  it("reports no `before` text when a binary file is overwritten", async () => {
    await writeFile(join(dir, "x.bin"), Buffer.from([0, 1, 2]));
    expect(await backend().write(join(dir, "x.bin"), "text now")).toEqual({ path: join(dir, "x.bin") });
  });

  it("lists sizes and follows symlinked directories in real mode", async () => {
    await mkdir(join(dir, "real"));
    await writeFile(join(dir, "real", "f.txt"), "12345");
    await symlink(join(dir, "real"), join(dir, "alias"));
    const listing = await backend().ls(dir);
    expect(listing.files!.map((f) => [f.path, f.isDir, f.size])).toEqual([
      [join(dir, "alias/"), true, 0],
      [join(dir, "real/"), true, 0],
    ]);
    expect((await backend().ls(join(dir, "alias"))).files![0]).toMatchObject({
      path: join(dir, "alias", "f.txt"),
      size: 5,
    });
    expect((await backend().ls(join(dir, "real", "f.txt"))).error).toMatch(/not a directory/);
  });

  it("greps a missing path as an error and globs it as empty", async () => {
    expect((await backend().grep("x", join(dir, "missing"))).error).toMatch(/not found/);
    expect(await backend().glob("**/*", join(dir, "missing"))).toEqual({ files: [] });
  });

  it("treats patterns literally and finds dotfiles but not symlinked trees", async () => {
    await mkdir(join(dir, ".config"));
    await writeFile(join(dir, ".config", "settings.json"), '{"a": "[x]*"}\n');
    await mkdir(join(top(), "other"), { recursive: true });
    await writeFile(join(top(), "other", "leak.txt"), "[x]*\n");
    await symlink(join(top(), "other"), join(dir, "linked"));
    const found = await backend().grep("[x]*", dir);
    expect(found.matches).toEqual([{ path: join(dir, ".config", "settings.json"), line: 1, text: '{"a": "[x]*"}' }]);
    expect((await backend().glob("**/*.txt", dir)).files).toEqual([]);
  });
});

function top(): string {
  return join(dir, "..", `${dir.split("/").pop()}-outside`);
}

afterEach(async () => {
  await rm(top(), { recursive: true, force: true });
});
