import { lstat, readdir, readFile, realpath } from "node:fs/promises";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import picomatch from "picomatch";
import { isWithin } from "../../backends/paths/real-path.js";
import { commandsDecidedBy } from "./command-policy.js";
import type { HostExecutionSurfaces } from "../surfaces/host-surfaces.js";

// Which remembered commands a change to a file must drop: the programs that read that file to decide
// what they run. Found as the tools themselves find them, without running them: the well-known names
// (package.json, Makefile, Cargo.toml, ... in command-policy.ts), everything git resolves
// (host-surfaces.ts: its config files and includes, hooks folder, programs its config names), the
// files a Makefile pulls in through `include` (followed to any depth; a name built from variables
// counts by its literal part), and the programs node_modules/.bin links lead to (what `npm test`
// starts when a script says `jest`).

/** The programs whose remembered approvals a change to the file at `real` (a real path) drops. */
export async function programsChangedBy(
  real: string,
  root: string | undefined,
  options: { surfaces?: HostExecutionSurfaces; readIncludes?: boolean } = {},
): Promise<"all" | string[]> {
  const named = commandsDecidedBy(root ? relative(root, real) : real);
  if (named === "all") return "all";
  const programs = new Set(named);
  if (options.surfaces?.match(real)?.kind === "git") programs.add("git");
  if (root && (options.readIncludes ?? true)) {
    const [make, bins] = await Promise.all([makeInputs(root), binTargets(root)]);
    if (make.files.has(real) || make.patterns.some((matches) => matches(relative(root, real)))) programs.add("make");
    if (bins.has(real)) for (const program of NODE_RUNNERS) programs.add(program);
  }
  return [...programs];
}

const NODE_RUNNERS = ["npm", "pnpm", "yarn", "bun"];
const MAKEFILES = ["GNUmakefile", "makefile", "Makefile"];
const MAX_MAKEFILES = 200;

type MakeInputs = { files: Set<string>; patterns: picomatch.Matcher[] };
const makeCache = new Map<string, { stamp: string; inputs: MakeInputs }>();

/** The makefiles of `root` and everything their `include` lines reach, by real path. */
async function makeInputs(root: string): Promise<MakeInputs> {
  const top = MAKEFILES.map((name) => join(root, name));
  const cached = makeCache.get(root);
  if (cached && (await stamp([...cached.inputs.files, ...top])) === cached.stamp) return cached.inputs;
  const inputs: MakeInputs = { files: new Set(), patterns: [] };
  const queue = [...top];
  while (queue.length > 0 && inputs.files.size < MAX_MAKEFILES) {
    const file = queue.shift()!;
    const text = await readFile(file, "utf8").catch(() => undefined);
    const real = await realpath(file).catch(() => resolve(file));
    if (text === undefined || inputs.files.has(real)) continue;
    inputs.files.add(real);
    for (const word of includedNames(text)) {
      const literal = !/[$*?[]/.test(word);
      // make resolves includes against the folder it runs in; the including file's folder too, to be safe.
      if (literal) queue.push(...(isAbsolute(word) ? [word] : [join(root, word), join(dirname(file), word)]));
      else inputs.patterns.push(picomatch(`**/${word.replace(/\$[({][^)}]*[)}]|\$./g, "*").replace(/^[/*]+/, "")}`));
    }
  }
  makeCache.set(root, { stamp: await stamp([...inputs.files, ...top]), inputs });
  return inputs;
}

/** The names on `include`, `-include` and `sinclude` lines (continuations joined). */
export function includedNames(text: string): string[] {
  const names: string[] = [];
  for (const line of text.replace(/\\\n/g, " ").split("\n")) {
    const match = /^\s*(?:-include|sinclude|include)\s+(.*)$/.exec(line);
    if (!match) continue;
    names.push(...match[1]!.replace(/#.*$/, "").split(/\s+/).filter(Boolean));
  }
  return names;
}

const binCache = new Map<string, { stamp: string; targets: Set<string> }>();

/** Real paths of what each node_modules/.bin entry of `root` runs. */
async function binTargets(root: string): Promise<Set<string>> {
  const dir = join(root, "node_modules", ".bin");
  const now = await stamp([dir]);
  const cached = binCache.get(root);
  if (cached?.stamp === now) return cached.targets;
  const names = await readdir(dir).catch(() => [] as string[]);
  const targets = new Set<string>();
  await Promise.all(
    names.map(async (name) => {
      const target = await realpath(join(dir, name)).catch(() => undefined);
      if (target && isWithin(target, root)) targets.add(target);
    }),
  );
  binCache.set(root, { stamp: now, targets });
  return targets;
}

async function stamp(paths: readonly string[]): Promise<string> {
  const parts = await Promise.all(
    paths.map(async (path) => {
      const info = await lstat(path, { bigint: true }).catch(() => undefined);
      return info ? `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}` : "-";
    }),
  );
  return parts.join("|");
}
