import { lstat, mkdir, readdir, rename, symlink, writeFile, chmod } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { addedNames, entryOf, sameEntry, type HeldComponent, type HeldPaths } from "./held-record.js";

// The check after a command (see held-record.ts): each held component, parents first, is compared
// with what is there now, and put back when it differs — what the host's git, editor or direnv
// opens next is again what it was before the command:
//  - something appeared where nothing was (a `core.hooksPath` folder, an include, `.envrc`): moved
//    aside as `NAME.deep-acp-moved`;
//  - a folder or file replaced (its parent renamed, then a new one made): the new one is moved aside
//    and the original, when it is still in the same folder under another name (the usual
//    `mv tools tools.old`), renamed back; else a file's held bytes are written, a folder made empty;
//  - a link replaced or retargeted (a linked `.git` turned into a real folder): the link is made again;
//  - a held file's bytes changed in place: the held bytes are written back.
// Each repair is one line the command's output carries to the model and the user.

export const MOVED_SUFFIX = ".deep-acp-moved";

/** Puts every held component back; one line per repair (empty when nothing changed). */
export async function restoreHeld(held: HeldPaths): Promise<string[]> {
  const notes: string[] = [];
  for (const component of held.components) {
    try {
      const note = await restoreComponent(component);
      if (note) notes.push(note);
    } catch (error) {
      notes.push(`could not restore ${component.path} (${component.reason}): ${(error as Error).message}`);
    }
  }
  return notes;
}

async function restoreComponent({ path, entry, reason }: HeldComponent): Promise<string | undefined> {
  const now = await entryOf(path, entry.kind === "file" && !!entry.content, entry.kind === "dir" && !!entry.names);
  if (sameEntry(entry, now)) return undefined;
  if (entry.kind === "dir" && now.kind === "dir" && entry.id === now.id) {
    // The folder is the same; what the command added inside it goes aside (held entries are restored on their own).
    const added = addedNames(entry, now).map((name) => join(path, name));
    const moved = await Promise.all(added.map(async (from) => `${from} aside to ${await moveAside(from)}`));
    return `moved ${moved.join(", ")} (${reason}): it did not exist before the command`;
  }
  if (entry.kind === "file" && now.kind === "file" && entry.id === now.id && entry.content) {
    await writeFile(path, entry.content);
    await chmod(path, entry.mode);
    return `restored ${path} (${reason}): its content or mode was changed`;
  }
  const aside = now.kind === "missing" ? undefined : await moveAside(path);
  const movedNote = aside ? `; what the command left there is now ${aside}` : "";
  if (entry.kind === "missing")
    return `moved ${path} aside to ${aside} (${reason}): it did not exist before the command`;
  if (entry.kind === "link") {
    await symlink(entry.target, path);
    return `restored the link ${path} -> ${entry.target} (${reason})${movedNote}`;
  }
  const original = await findById(dirname(path), entry.id);
  if (original) {
    await rename(original, path);
    return `restored ${path} (${reason}): the command had moved it to ${original}${movedNote}`;
  }
  if (entry.kind === "dir") {
    await mkdir(path);
    return `restored ${path} (${reason}) as an empty folder: the original was moved out of reach${movedNote}`;
  }
  if (entry.content) {
    await writeFile(path, entry.content, { mode: entry.mode });
    await chmod(path, entry.mode);
    return `restored ${path} (${reason}) from the copy held before the command${movedNote}`;
  }
  return `removed ${path} (${reason}): the original was moved out of reach and was too large to hold${movedNote}`;
}

/** Renames whatever is at `path` to a free `NAME.deep-acp-moved[.N]` next to it; returns the new path. */
async function moveAside(path: string): Promise<string> {
  for (let n = 0; ; n += 1) {
    const target = `${path}${MOVED_SUFFIX}${n === 0 ? "" : `.${n}`}`;
    const taken = await lstat(target).then(
      () => true,
      () => false,
    );
    if (taken) continue;
    await rename(path, target);
    return target;
  }
}

/** An entry of `dir` with the identity `id` (where a renamed original usually is), not a moved-aside one. */
async function findById(dir: string, id: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    if (basename(name).includes(MOVED_SUFFIX)) continue;
    const info = await lstat(join(dir, name), { bigint: true }).catch(() => undefined);
    if (info && `${info.dev}:${info.ino}` === id) return join(dir, name);
  }
  return undefined;
}
