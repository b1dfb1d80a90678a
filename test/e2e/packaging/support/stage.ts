import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { cp, mkdir, readFile, symlink } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";

// Builds the package into a private folder instead of the repo's dist/, so these tests always test
// the current source and never race another test (or a developer) rebuilding dist/.

export const REPO = join(import.meta.dirname, "..", "..", "..", "..");

const run = promisify(execFile);

export type PackageJson = {
  name: string;
  version: string;
  bin: Record<string, string>;
  files: string[];
  dependencies?: Record<string, string>;
  peerDependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

export async function readPackageJson(): Promise<PackageJson> {
  return JSON.parse(await readFile(join(REPO, "package.json"), "utf8")) as PackageJson;
}

export type StagedPackage = {
  /** A folder laid out like the repo root: package.json, the published extras and a fresh dist/. */
  dir: string;
  /** The built bin entry (`dist/deep-acp.js`). */
  entry: string;
  pkg: PackageJson;
};

/** package.json, every other entry of its `files` that exists, `src` linked, then `npm run build`'s script. */
export async function stagePackage(parent: string): Promise<StagedPackage> {
  const dir = join(parent, "stage");
  await mkdir(dir);
  const pkg = await readPackageJson();
  await cp(join(REPO, "package.json"), join(dir, "package.json"));
  for (const entry of pkg.files) {
    if (!entry.startsWith("dist") && existsSync(join(REPO, entry)))
      await cp(join(REPO, entry), join(dir, entry), { recursive: true });
  }
  await symlink(join(REPO, "src"), join(dir, "src"));
  await run(process.execPath, [join(REPO, "scripts", "build.mjs")], { cwd: dir });
  return { dir, entry: join(dir, pkg.bin["deep-acp"]!), pkg };
}
