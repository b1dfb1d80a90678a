import { realpathSync } from "node:fs";
import { copyFile, readFile, realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { errorMessage } from "../../util/errors.js";
import { isStandaloneBinary } from "../../util/standalone.js";
import type { CliOptions } from "../args/args.js";
import { mergeSettingsEntry } from "./jsonc-settings.js";
import {
  AGENT_NAME,
  EDITORS,
  editorTarget,
  type EditorName,
  type JsonEditor,
  type LaunchCommand,
  type SnippetEditor,
} from "./setup-editors.js";

export type SetupOptions = {
  /** Default: os.homedir(). Every settings path is under it. */
  home?: string;
  /** Default: process.platform (decides where VS Code and Zed keep settings). */
  platform?: NodeJS.Platform;
  /** Default: thisInstallation(). */
  launch?: LaunchCommand;
  /** Default: process.stdout. */
  out?: (text: string) => void;
  /** Usage errors; default: process.stderr. */
  err?: (text: string) => void;
  /** Default: process.env (only XDG_CONFIG_HOME is read). */
  env?: NodeJS.ProcessEnv;
  /** Default: new Date(); names the backup. */
  now?: () => Date;
};

/**
 * The launch line of the running installation: this Node binary and the real path of the script
 * (a checkout's dist/, a global install, or npx's cache all resolve to a real deep-acp.js). Using
 * node's absolute path means the editor needs neither `node` nor `deep-acp` on its PATH.
 */
export function thisInstallation(
  script = process.argv[1],
  execPath = process.execPath,
  standalone = isStandaloneBinary(),
): LaunchCommand {
  // The standalone binary carries its own Node and script: its own path is the whole launch line.
  if (standalone) return { command: execPath, args: [] };
  if (!script) throw new Error("cannot tell where this deep-acp is installed (no script path)");
  return { command: execPath, args: [realpathSync(script)] };
}

/** `deep-acp setup <editor> [--print] [--dry-run]`. Exit codes: 0 done, 1 refused, 2 usage. */
export async function runSetup(cli: CliOptions, options: SetupOptions = {}): Promise<number> {
  const out = options.out ?? ((text: string) => void process.stdout.write(text));
  const [editor, plugin, ...extra] = cli.command.slice(1);
  if (!editor || extra.length > 0 || !(EDITORS as readonly string[]).includes(editor)) {
    (options.err ?? ((text: string) => void process.stderr.write(text)))(
      `deep-acp setup: name one editor: ${EDITORS.join(", ")} (got "${cli.command.slice(1).join(" ")}")\n`,
    );
    return 2;
  }
  const err = options.err ?? ((text: string) => void process.stderr.write(text));
  const launch = options.launch ?? thisInstallation();
  const env = options.env ?? process.env;
  const target = editorTarget(editor as EditorName, launch, {
    home: options.home ?? homedir(),
    platform: options.platform ?? process.platform,
    ...(env.XDG_CONFIG_HOME ? { xdgConfigHome: env.XDG_CONFIG_HOME } : {}),
  });
  // What is printed to paste goes to stdout alone; every word about it goes to stderr.
  const explain = target.kind === "snippet" || cli.print ? err : out;
  if (/[\\/]_npx[\\/]/.test(launch.args.join(" "))) {
    explain(
      `Note: this deep-acp runs from npx's cache (${launch.args[0]}), which npm may clean; for a lasting path install it (npm i -g deep-acp) or use a checkout.\n\n`,
    );
  }
  if (target.kind === "snippet") return printSnippets(target, { editor, plugin }, out, err);
  if (plugin !== undefined) {
    err(`deep-acp setup: ${editor} takes no plugin name (got "${plugin}")\n`);
    return 2;
  }
  if (cli.print) return printEntry(target, out, err);
  return writeEntry(target, { dryRun: cli.dryRun, out, now: options.now ?? (() => new Date()) });
}

/**
 * One snippet's code on stdout (comments in the language's own syntax), where it goes on stderr.
 * Only one: pasting CodeCompanion's and avante's together failed with `module 'avante' not found`.
 */
function printSnippets(
  target: SnippetEditor,
  { editor, plugin }: { editor: string; plugin: string | undefined },
  out: (text: string) => void,
  err: (text: string) => void,
): number {
  const snippet = plugin === undefined ? target.snippets[0]! : target.snippets.find((s) => s.id === plugin);
  const ids = target.snippets.map((s) => s.id);
  if (!snippet) {
    err(`deep-acp setup: name one of ${ids.join(", ")} for ${target.label} (got "${plugin}")\n`);
    return 2;
  }
  err(`${target.label}: settings are code, so deep-acp prints them rather than editing your config.\n`);
  err(`${snippet.title}: goes into ${snippet.where}.\n`);
  out(`${snippet.code}\n`);
  const others = target.snippets.filter((s) => s !== snippet);
  for (const other of others) err(`For ${other.title} instead: deep-acp setup ${editor} ${other.id}\n`);
  return 0;
}

function printEntry(target: JsonEditor, out: (text: string) => void, err: (text: string) => void): number {
  const snippet = JSON.stringify({ [target.group]: { [AGENT_NAME]: target.entry } }, null, 2);
  err(`${target.label}: merge this into ${target.file}\n`);
  out(`${snippet}\n`);
  return 0;
}

async function writeEntry(
  target: JsonEditor,
  run: { dryRun: boolean; out: (text: string) => void; now: () => Date },
): Promise<number> {
  const { out } = run;
  // Follow a symlinked settings file (dotfile managers) so the link survives the rename.
  const file = await realpath(target.file).catch(() => target.file);
  let before: string | undefined;
  try {
    before = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") {
      out(`Cannot read ${file}: ${errorMessage(error)}. Nothing was written.\n`);
      return 1;
    }
  }
  const merged = mergeSettingsEntry(before ?? "", target.group, AGENT_NAME, target.entry, target.seed);
  if (!merged.ok) {
    out(
      `${file} is not valid JSON with comments (${merged.error}). Nothing was written; fix the file or merge this by hand:\n\n`,
    );
    printEntry(target, out, out);
    return 1;
  }
  const verb = merged.replaced ? "update" : "add";
  if (merged.text === before) {
    out(`${target.label}: ${file} already launches this deep-acp; nothing to change.\n`);
    return 0;
  }
  if (run.dryRun) {
    out(
      `Dry run: would ${verb} "${AGENT_NAME}" in ${file}${before === undefined ? " (a new file)" : " and keep a backup"}. The file would read:\n\n${merged.text}`,
    );
    return 0;
  }
  const mode = before === undefined ? 0o644 : (await stat(file)).mode & 0o777;
  let backup: string | undefined;
  if (before !== undefined) {
    backup = `${file}.${stamp(run.now())}.bak`;
    await copyFile(file, backup);
  }
  await writeFileAtomic(file, merged.text, { mode, dirMode: 0o755 });
  out(
    `${target.label}: ${merged.replaced ? "updated" : "added"} "${AGENT_NAME}" in ${file}${backup ? ` (backup: ${backup})` : ""}.\n${target.next}\n`,
  );
  return 0;
}

/** A sortable, file-name-safe time: 20261130T182630Z. */
function stamp(date: Date): string {
  return date.toISOString().replace(/[-:]/g, "").replace(/\.\d+/, "");
}
