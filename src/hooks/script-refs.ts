// The project files a hook command runs. Trusting `node .deepagents/hook.mjs` means trusting the
// bytes of hook.mjs too: an approval of hooks.json alone would stay valid while the script behind
// it is rewritten. Every word of a command that names an existing file inside the project is
// covered by the approval fingerprint.

import { realpath, stat } from "node:fs/promises";
import { isAbsolute, relative, resolve, sep } from "node:path";
import { describeDigestChanges, digestOfDigests, digestPath, type FileDigests } from "../util/file-digest.js";

/** The words of a command that could be paths: shell operators split, quotes and `--opt=` removed. */
export function pathCandidates(command: { command?: string; argv?: string[] }, projectRoot: string): string[] {
  const words = command.argv ? [...command.argv] : shellWords(command.command ?? "");
  const out = new Set<string>();
  for (const raw of words) {
    const word = raw.replace(/\$\{CLAUDE_PROJECT_DIR\}|\$CLAUDE_PROJECT_DIR\b/g, projectRoot);
    out.add(word);
    const eq = word.indexOf("=");
    if (eq > 0) out.add(word.slice(eq + 1));
  }
  return [...out].filter((word) => word !== "" && !word.startsWith("-"));
}

/** Splits like a shell would for our purpose: whitespace and operators separate, quotes group. */
function shellWords(text: string): string[] {
  const words: string[] = [];
  let current = "";
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote) quote = null;
      else if (ch === "\\" && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += ch;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "\\" && i + 1 < text.length) current += text[++i];
    else if (/\s|[;&|()<>`]/.test(ch)) {
      if (current) words.push(current);
      current = "";
    } else current += ch;
  }
  if (current) words.push(current);
  return words;
}

/**
 * Digests of the project files the commands name, keyed by their path relative to the project
 * root. A word counts when it resolves (against the root, where hooks run) to an existing regular
 * file whose path, lexically or after following links, is inside the project.
 */
export async function hookScriptDigests(
  commands: ReadonlyArray<{ command?: string; argv?: string[] }>,
  projectRoot: string,
): Promise<FileDigests> {
  const root = resolve(projectRoot);
  const realRoot = await realpath(root).catch(() => root);
  const out: FileDigests = {};
  for (const command of commands) {
    for (const word of pathCandidates(command, root)) {
      const path = isAbsolute(word) ? resolve(word) : resolve(root, word);
      const info = await stat(path).catch(() => undefined);
      if (!info?.isFile()) continue;
      const real = await realpath(path).catch(() => path);
      const inside = isInside(path, root) || isInside(real, realRoot);
      if (!inside) continue;
      const name = isInside(path, root) ? relative(root, path) : relative(realRoot, real);
      // The real file's bytes: a link inside the project is trusted for what it points at now.
      out[name.split(sep).join("/")] = await digestPath(real);
    }
  }
  return out;
}

function isInside(path: string, root: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);
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
