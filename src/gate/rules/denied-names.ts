import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";
import { decidePathAccess, type CompiledFileRules, type FileOperation } from "./file-rules.js";

// A deny rule names paths, but a hard link gives the denied file another name (`ln ~/.ssh/id_rsa
// notes.txt`): the same device and inode. For a target with more than one name, the folders the
// deny rules name (each pattern's literal part) are searched for a file with the same device and
// inode that the rules deny; when one is found, the target is that file and is denied under every
// name. Only hard-linked targets pay for the search, which is bounded: a search cut short counts as
// a match, so an unproven name is denied rather than allowed.

const MAX_ENTRIES = 50_000;
const GLOB = /[*?[\]{}()!+@]/;

export type DeniedName = { path: string } | { undetermined: string };

/** Another name of the file (device `dev`, inode `ino`) that the rules deny for `op`, if any. */
export async function deniedNameOf(
  rules: CompiledFileRules,
  op: FileOperation,
  identity: { dev: number; ino: number },
): Promise<DeniedName | undefined> {
  const bases = new Set<string>();
  for (const rule of rules.rules) {
    if (rule.mode !== "deny" || !rule.operations.includes(op)) continue;
    for (const pattern of rule.patterns) bases.add(literalBase(pattern));
  }
  let budget = MAX_ENTRIES;
  const walk = async (dir: string): Promise<DeniedName | undefined> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (--budget < 0)
        return { undetermined: `the folders your deny rules name hold more than ${MAX_ENTRIES} entries` };
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        const found = await walk(path);
        if (found) return found;
      } else if (entry.isFile()) {
        const info = await lstat(path).catch(() => undefined);
        if (info && info.nlink > 1 && info.ino === identity.ino && info.dev === identity.dev)
          if (decidePathAccess(rules, op, path) === "deny") return { path };
      }
    }
    return undefined;
  };
  for (const base of bases) {
    const info = await lstat(base).catch(() => undefined);
    if (!info) continue;
    if (info.isFile()) {
      if (info.ino === identity.ino && info.dev === identity.dev && decidePathAccess(rules, op, base) === "deny")
        return { path: base };
      continue;
    }
    if (!info.isDirectory()) continue;
    const found = await walk(base);
    if (found) return found;
  }
  return undefined;
}

/** The folder (or file) a rule's glob starts from: its segments up to the first glob. */
function literalBase(pattern: string): string {
  const literal: string[] = [];
  for (const segment of pattern.split("/").slice(1)) {
    if (GLOB.test(segment)) break;
    literal.push(segment);
  }
  return `/${literal.join("/")}`;
}
