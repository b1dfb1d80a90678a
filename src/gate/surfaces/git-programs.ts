import { expandHome, type GitConfigEntry } from "./git-config-scan.js";

export { expandHome };

// Config values git runs as programs (core.fsmonitor, filters, diff and merge drivers, helpers,
// `!` aliases, pagers, editors, ...). A value naming a script in the project makes that script a
// file that decides what runs on the host: `filter.x.clean = ./tools/clean.sh`.

const PROGRAM_KEYS = [
  /^core\.(fsmonitor|sshcommand|editor|pager|askpass|gitproxy|alternaterefscommand)$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^diff\..+\.(command|textconv)$/,
  /^merge\..+\.driver$/,
  /^(difftool|mergetool)\..+\.(cmd|path)$/,
  /^(sequence|gpg|gpg\..+)\.(editor|program)$/,
  /^credential(\..+)?\.helper$/,
  /^alias\./,
  /^pager\./,
  /^(uploadpack\.packobjectshook|interactive\.difffilter|web\.browser|sendemail\.(smtpserver|sendmailcmd|tocmd|cccmd))$/,
  /^browser\..+\.(cmd|path)$/,
  /^remote\..+\.(uploadpack|receivepack)$/,
];

/**
 * Words of a config value that look like paths of programs or scripts, resolved against `base`;
 * of every key's value with "any key" (what counts when git's answer is unknown).
 */
export function gitProgramPaths(
  config: readonly GitConfigEntry[],
  base: string,
  home: string,
  keys: "programs" | "any key" = "programs",
): Array<{ key: string; path: string }> {
  const out: Array<{ key: string; path: string }> = [];
  for (const entry of config) {
    const key = entry.key.toLowerCase();
    if (keys === "programs" && !PROGRAM_KEYS.some((pattern) => pattern.test(key))) continue;
    for (const word of valueWords(entry.value)) {
      if (!/[/]/.test(word) && !word.startsWith(".") && !word.startsWith("~")) continue;
      if (/^[a-z][a-z0-9+.-]*:/i.test(word) || word.startsWith("-")) continue;
      out.push({ key: entry.key, path: expandHome(word, home, base) });
    }
  }
  return out;
}

/** Shell-like words: `!` alias markers and quotes dropped, `VAR=value` assignments' values kept. */
function valueWords(value: string): string[] {
  const words = value
    .replace(/^!/, "")
    .split(/[\s;&|()<>`]+/)
    .map((word) => word.replace(/^["']|["']$/g, ""))
    .filter(Boolean);
  return words.map((word) => (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) ? word.slice(word.indexOf("=") + 1) : word));
}

/** Names git runs as hooks (githooks(5)): where the hooks path is unknown, a file so named may be one. */
const HOOK_NAMES = new Set([
  "applypatch-msg",
  "pre-applypatch",
  "post-applypatch",
  "pre-commit",
  "pre-merge-commit",
  "prepare-commit-msg",
  "commit-msg",
  "post-commit",
  "pre-rebase",
  "post-checkout",
  "post-merge",
  "pre-push",
  "pre-receive",
  "update",
  "proc-receive",
  "post-receive",
  "post-update",
  "reference-transaction",
  "push-to-checkout",
  "pre-auto-gc",
  "post-rewrite",
  "sendemail-validate",
  "fsmonitor-watchman",
  "post-index-change",
  "p4-changelist",
  "p4-prepare-changelist",
  "p4-post-changelist",
  "p4-pre-submit",
]);

/** Folders hooks paths commonly are (`hooks`, `githooks`, `.husky`, ...). */
const HOOK_FOLDER = /^\.?(git-?)?hooks$|^\.husky$/i;

/** A path (relative to a root) inside a hooks-like folder, or a file named as a git hook. */
export function isHooksLike(relativePath: string): boolean {
  const segments = relativePath.split("/").filter(Boolean);
  if (segments.length === 0) return false;
  if (HOOK_NAMES.has(segments.at(-1)!.toLowerCase())) return true;
  return segments.some((segment) => HOOK_FOLDER.test(segment));
}
