import { isAbsolute, join, resolve } from "node:path";
import type { GitConfigEntry } from "./git-probe.js";

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

/** Words of a config value that look like paths of programs or scripts, resolved against `base`. */
export function gitProgramPaths(
  config: readonly GitConfigEntry[],
  base: string,
  home: string,
): Array<{ key: string; path: string }> {
  const out: Array<{ key: string; path: string }> = [];
  for (const entry of config) {
    const key = entry.key.toLowerCase();
    if (!PROGRAM_KEYS.some((pattern) => pattern.test(key))) continue;
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

/** `~/x` and `~` against home, relative paths against `base` (git's own rules for config paths). */
export function expandHome(value: string, home: string, base: string): string {
  if (value === "~") return home;
  if (value.startsWith("~/")) return join(home, value.slice(2));
  return isAbsolute(value) ? resolve(value) : resolve(base, value);
}
