import { randomBytes } from "node:crypto";
import { cp, mkdir, realpath, rename, rm } from "node:fs/promises";
import { basename, join, sep } from "node:path";
import { cacheSegment } from "./ids.js";
import { isWithin } from "../util/path-within.js";

export class PluginInstallError extends Error {
  override name = "PluginInstallError";
}

export type InstallCopyOptions = {
  pluginsDir: string;
  name: string;
  marketplace: string;
  version?: string;
  sourceDir: string;
};

/**
 * Copies a plugin into `<pluginsDir>/cache/<marketplace>/<plugin>/<version>/`, replacing an older
 * copy of the same version. Symlinks are copied as links, not followed, so a link that leads out of
 * the plugin still fails the containment checks instead of having its target copied in.
 */
export async function installPluginCopy(options: InstallCopyOptions): Promise<string> {
  const realSource = await realpath(options.sourceDir);
  await mkdir(options.pluginsDir, { recursive: true, mode: 0o700 });
  const realPlugins = await realpath(options.pluginsDir);
  if (isWithin(realPlugins, realSource)) {
    throw new PluginInstallError(
      `${options.sourceDir} contains the plugin store ${options.pluginsDir}; add the plugin's own directory instead`,
    );
  }
  const parent = join(options.pluginsDir, "cache", cacheSegment(options.marketplace), cacheSegment(options.name));
  await mkdir(parent, { recursive: true, mode: 0o700 });
  const target = join(parent, cacheSegment(options.version ?? "unversioned"));
  const temp = join(parent, `.${basename(target)}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    await cp(realSource, temp, { recursive: true, verbatimSymlinks: true, filter: (src) => basename(src) !== ".git" });
    await rm(target, { recursive: true, force: true });
    await rename(temp, target);
  } catch (error) {
    await rm(temp, { recursive: true, force: true });
    throw error;
  }
  return target;
}

/** Removes an installed copy, but only inside the store's cache. */
export async function removePluginCopy(pluginsDir: string, installPath: string): Promise<boolean> {
  const cache = join(pluginsDir, "cache") + sep;
  if (!installPath.startsWith(cache)) return false;
  await rm(installPath, { recursive: true, force: true });
  return true;
}
