import { mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A real (symlink-free) temp directory and a cleanup for afterEach. */
export async function makeTempDir(prefix = "deep-acp-test-"): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Writes `files` (relative path -> content) under `root`, creating directories. */
export async function writeTree(root: string, files: Record<string, string>): Promise<void> {
  for (const [rel, content] of Object.entries(files)) {
    const path = join(root, rel);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, content);
  }
}

export function skillMd(name: string, description: string, body = "Body."): string {
  return `---\nname: ${name}\ndescription: ${description}\n---\n\n${body}\n`;
}
