import { delimiter, dirname, isAbsolute, join, resolve } from "node:path";
import { isWithin } from "../../backends/paths/real-path.js";
import type { CommandWords } from "./command-policy.js";
import { includedNames } from "./command-inputs.js";

// The files that decide what a remembered command runs, found as the program itself finds them,
// without running it: make's makefile (the first of GNUmakefile, makefile, Makefile in the folder it
// runs in) and every file its `include` lines name literally; a package manager's package.json
// entries (the script, its pre/post scripts, `config`, `packageManager`), its rc files, and what the
// script's first words start (a node_modules/.bin link, or a project file by path); rake's, just's
// and task's files; and, for any program, a copy of it in a project folder on PATH. Each absent
// candidate counts too: a GNUmakefile that appears later wins over the Makefile that was approved.
// Names built from variables (`include $(DEPS)`) are not followed: a limit the README names.

/** One thing a fingerprint records: a whole file, or one entry of a JSON file (`scripts.build`). */
export type DecisiveItem = { path: string; entry?: readonly string[] };

/** Reads a file where the command runs; undefined when it cannot be read (missing, not a file). */
export type DecisiveReader = (path: string) => Promise<Buffer | undefined>;

export type DecisiveContext = {
  cwd: string;
  /** Real paths of the session roots. */
  roots: readonly string[];
  read: DecisiveReader;
  /** PATH of the command, when the gate knows it (a local workspace): project folders on it count. */
  path?: string;
};

const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];
const MAX_MAKE_FILES = 200;
const TASK_FILES: Record<string, readonly string[]> = {
  rake: ["rakefile", "Rakefile", "rakefile.rb", "Rakefile.rb"],
  just: ["justfile", ".justfile", "Justfile", "JUSTFILE"],
  task: ["Taskfile.yml", "taskfile.yml", "Taskfile.yaml", "taskfile.yaml", "Taskfile.dist.yml", "Taskfile.dist.yaml"],
};
const PACKAGE_MANAGERS = new Set(["npm", "pnpm", "yarn", "bun"]);
/** rc files that can name the script shell, the package manager's own release or a loader. */
const PACKAGE_RC = [".npmrc", ".yarnrc", ".yarnrc.yml", ".pnpmfile.cjs", "bunfig.toml", ".pnp.cjs", ".pnp.loader.mjs"];
const INSTALL = new Set(["install", "i", "ci", "add", "rebuild", "update", "up"]);
const LIFECYCLE = ["preinstall", "install", "postinstall", "preprepare", "prepare", "postprepare"];
const NPM_ALIASES: Record<string, string> = { t: "test", tst: "test", "run-script": "run" };

/** What decides what `words` runs, in the order the program looks (duplicates removed). */
export async function decisiveItems(words: CommandWords, context: DecisiveContext): Promise<DecisiveItem[]> {
  const program = words.program.includes("/") ? words.program.slice(words.program.lastIndexOf("/") + 1) : words.program;
  const items: DecisiveItem[] = projectCopiesOnPath(program, context);
  if (program === "make" || program === "gmake") items.push(...(await makeFiles(context)));
  else if (TASK_FILES[program]) items.push(...upwardFiles(TASK_FILES[program], context));
  else if (PACKAGE_MANAGERS.has(program)) items.push(...(await packageItems(program, words.args, context)));
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = itemId(item);
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}

/** The fingerprint's name for an item: the path, and `#scripts.build` for an entry. */
export function itemId(item: DecisiveItem): string {
  return item.entry ? `${item.path}#${item.entry.join(".")}` : item.path;
}

/** The makefiles make reads here: every top-level name, and what the first one found includes. */
async function makeFiles(context: DecisiveContext): Promise<DecisiveItem[]> {
  const items: DecisiveItem[] = MAKEFILES.map((name) => ({ path: join(context.cwd, name) }));
  // Read side by side and level by level: over a remote's or a container's link each read is a round trip.
  const tops = await Promise.all(items.map((item) => context.read(item.path)));
  const index = tops.findIndex((text) => text !== undefined);
  if (index === -1) return items;
  const done = new Set<string>([items[index]!.path]);
  let level: Array<{ path: string; text: Buffer | undefined }> = [{ path: items[index]!.path, text: tops[index] }];
  while (level.length > 0) {
    const next: string[] = [];
    for (const { text } of level) {
      if (text === undefined) continue;
      // make resolves a relative include against the folder it runs in.
      for (const word of includedNames(text.toString("utf8"))) {
        if (/[$*?[%]/.test(word)) continue;
        const path = isAbsolute(word) ? resolve(word) : resolve(context.cwd, word);
        if (done.has(path) || done.size >= MAX_MAKE_FILES) continue;
        done.add(path);
        next.push(path);
        items.push({ path });
      }
    }
    level = await Promise.all(next.map(async (path) => ({ path, text: await context.read(path) })));
  }
  return items;
}

/** Each name in cwd and every folder up to its root (rake, just and task look upward; a nearer one appearing wins). */
function upwardFiles(names: readonly string[], context: DecisiveContext): DecisiveItem[] {
  return foldersUp(context).flatMap((dir) => names.map((name) => ({ path: join(dir, name) })));
}

/** cwd and its parents up to the root that holds it (cwd alone when it is in no root). */
function foldersUp(context: DecisiveContext): string[] {
  const root = context.roots.find((r) => isWithin(context.cwd, r));
  const dirs = [context.cwd];
  for (let dir = context.cwd; root && dir !== root && dirname(dir) !== dir;) {
    dir = dirname(dir);
    dirs.push(dir);
  }
  return dirs;
}

async function packageItems(
  program: string,
  args: readonly string[],
  context: DecisiveContext,
): Promise<DecisiveItem[]> {
  // The package is the nearest folder up from cwd that has a package.json, as npm finds its prefix.
  const folders = foldersUp(context);
  const texts = await Promise.all(folders.map((folder) => context.read(join(folder, "package.json"))));
  const found = texts.findIndex((text) => text !== undefined);
  const dir = found === -1 ? context.cwd : folders[found]!;
  const manifest = found === -1 ? undefined : parseObject(texts[found]!);
  const pkg = join(dir, "package.json");
  const items: DecisiveItem[] = [
    { path: pkg, entry: ["config"] },
    { path: pkg, entry: ["packageManager"] },
  ];
  items.push(...PACKAGE_RC.map((name) => ({ path: join(dir, name) })));
  const sub = NPM_ALIASES[args[0] ?? ""] ?? args[0] ?? "";
  const names = sub === "run" ? [args[1] ?? ""] : INSTALL.has(sub) ? LIFECYCLE : [sub];
  const scripts = (manifest?.scripts ?? {}) as Record<string, unknown>;
  for (const name of names.filter(Boolean)) {
    for (const script of INSTALL.has(sub) ? [name] : [`pre${name}`, name, `post${name}`]) {
      items.push({ path: pkg, entry: ["scripts", script] });
      const text = scripts[script];
      if (typeof text === "string") items.push(...scriptStarts(text, dir, context));
    }
  }
  return items;
}

/**
 * What a script's commands start by their first word: a project file by path (`./build.sh`), or the
 * node_modules/.bin link npm puts on PATH (the package's folder, then each parent's, up to the root).
 * Files the script hands to an interpreter (`node test/run.js`) are the project's code, not counted.
 */
function scriptStarts(script: string, dir: string, context: DecisiveContext): DecisiveItem[] {
  const items: DecisiveItem[] = [];
  for (const part of script.split(/&&|\|\||[;|&\n]/)) {
    const first = part
      .trim()
      .split(/\s+/)
      .find((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word));
    if (!first || /[$`'"(){}]/.test(first)) continue;
    if (first.includes("/")) {
      items.push({ path: resolve(dir, first) });
      continue;
    }
    const up = foldersUp({ ...context, cwd: dir });
    items.push(...up.map((folder) => ({ path: join(folder, "node_modules", ".bin", first) })));
  }
  return items;
}

/** A copy of `program` in a project folder on PATH, and each such folder before the one PATH finds it in. */
function projectCopiesOnPath(program: string, context: DecisiveContext): DecisiveItem[] {
  if (context.path === undefined) return [];
  const items: DecisiveItem[] = [];
  for (const entry of context.path.split(delimiter)) {
    const dir = resolve(context.cwd, entry || ".");
    if (!context.roots.some((root) => isWithin(dir, root))) continue;
    items.push({ path: join(dir, program) });
  }
  return items;
}

function parseObject(text: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text.toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}
