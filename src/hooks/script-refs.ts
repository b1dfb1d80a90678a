// The project files a hook command runs. Trusting `node .deepagents/hook.mjs` means trusting the
// bytes of hook.mjs too: an approval of hooks.json alone would stay valid while the script behind
// it is rewritten. The files are read off the command line (util/command-scripts.ts: the script
// an interpreter runs, scripts in `sh -c '...'` strings, each against the folder `cd` moved to, and
// every word naming a file); those that exist inside the project are covered by the fingerprint.

import { resolve } from "node:path";
import { commandFiles } from "../util/command-scripts.js";
import { describeDigestChanges, digestOfDigests, projectFileDigests, type FileDigests } from "../util/file-digest.js";

/** `${CLAUDE_PROJECT_DIR}` as the hook sees it: the project root. */
function withProjectDir(command: { command?: string; argv?: string[] }, root: string) {
  const sub = (text: string) => text.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, root);
  return command.argv ? { argv: command.argv.map(sub) } : { command: sub(command.command ?? "") };
}

/**
 * Digests of the project files the commands run or name, keyed by their path relative to the
 * project root. A file counts when it exists and its path, lexically or after following links, is
 * inside the project; the digest is of the real file's bytes.
 */
export async function hookScriptDigests(
  commands: ReadonlyArray<{ command?: string; argv?: string[] }>,
  projectRoot: string,
): Promise<FileDigests> {
  const root = resolve(projectRoot);
  const candidates = commands.flatMap((command) => commandFiles(withProjectDir(command, root), root).candidates);
  return projectFileDigests(candidates, root);
}

/** Why the files some of these commands run cannot be told from the commands (npx, shell expansion, ...). */
export function hookScriptsUndetermined(
  commands: ReadonlyArray<{ command?: string; argv?: string[] }>,
  projectRoot: string,
): string[] {
  const root = resolve(projectRoot);
  return [...new Set(commands.flatMap((command) => commandFiles(withProjectDir(command, root), root).undetermined))];
}

/**
 * What a project-hooks approval is bound to: the hooks file bytes, plus the scripts it runs. With
 * no scripts it is the file's SHA-256 alone (what earlier versions stored).
 */
export function hookTrustFingerprint(fileSha256: string, scripts: FileDigests): string {
  if (Object.keys(scripts).length === 0) return fileSha256;
  return digestOfDigests({ "(hooks file)": fileSha256, ...scripts });
}

/** Why the dialog is back: the hooks file and each script that changed since the approval. */
export function hookTrustChanges(
  before: { sha256: string; hooksFile?: string; scripts?: FileDigests },
  now: { fileSha256: string; scripts: FileDigests; file: string },
): string[] {
  const out: string[] = [];
  // Entries written before scripts were covered hold the file's digest in `sha256`.
  if ((before.hooksFile ?? before.sha256) !== now.fileSha256) out.push(`${now.file} changed`);
  if (before.scripts) out.push(...describeDigestChanges(before.scripts, now.scripts));
  else if (Object.keys(now.scripts).length > 0)
    out.push(`the approval now also covers the scripts it runs (${Object.keys(now.scripts).sort().join(", ")})`);
  return out;
}
