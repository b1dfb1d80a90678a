import { realpath } from "node:fs/promises";
import { isWithin } from "./path-within.js";

// HOME, or a folder holding it, is never a container's project nor writable in the sandbox: it is
// where the credentials are (~/.ssh, ~/.aws, the stored model keys), and what a dotfiles repository
// (a `.git` in HOME) makes the "project" of every folder below it that has no `.git` of its own.

/** Whether `root` is HOME or a folder holding it, compared on real paths. */
export async function holdsHome(root: string, home: string): Promise<boolean> {
  const [r, h] = await Promise.all([realpath(root).catch(() => root), realpath(home).catch(() => home)]);
  return isWithin(h, r);
}

/** Why `root` is refused for `what`, and what to open instead. */
export function homeRootMessage(root: string, home: string, what: string): string {
  const why = root === home ? "it is your home folder" : `it holds your home folder ${home}`;
  return (
    `${what} refuses ${root} as the project: ${why}, with your credentials (~/.ssh, ~/.aws, ~/.deepagents) in it. ` +
    `This happens when HOME is a git repository (dotfiles) and the folder you opened has no .git of its own. ` +
    `Open the project's own folder, or run \`git init\` in it so that it is its own root.`
  );
}
