import { join } from "node:path";
import { readHostEntry, specialBitNames, hostMode } from "../../backends/paths/host-apply.js";
import type { Change } from "../../backends/container/workspace-changes.js";
import { looksBinary } from "../../backends/files/mime.js";
import type { ToolDisplay } from "../../tools/types.js";

// What /apply's dialogs show: every change by name (up to a bound, then how many more), diffs of the
// snapshot that will be written (up to a bound in count and size, then a line naming what has no
// diff), never a silent cut. The host's side is read without following links: a host link shows as
// the link it is, never as the file it points to.

export type ListedChange = Change & { protectedBy?: string; conflict?: string };

export const APPLY_BOUNDS = {
  /** Names in one dialog's list. */
  names: 1_000,
  /** Diffs in one dialog. */
  diffs: 100,
  /** Text of those diffs, old and new sides together. */
  diffBytes: 256 * 1024,
  /** Changed files' content kept in memory between the dialog and the write; past it, hashed and re-read. */
  keepBytes: 64 * 1024 * 1024,
};

const octal = (mode: number) => mode.toString(8).padStart(4, "0");

/** "setuid bit removed on the host (4755 -> 0755)" for a mode the host does not get whole. */
export function strippedBits(change: Change): string | undefined {
  const mode = change.kind !== "deleted" && change.type === "file" ? change.entry?.mode : undefined;
  if (mode === undefined) return undefined;
  const names = specialBitNames(mode);
  if (names.length === 0) return undefined;
  return `${names.join(" and ")} bit${names.length > 1 ? "s" : ""} removed on the host (${octal(mode)} -> ${octal(hostMode(mode))})`;
}

export const changeLine = (c: ListedChange) => {
  const stripped = strippedBits(c);
  return `- ${c.kind} \`${c.path}\`${c.type === "link" ? " (link)" : ""}${
    c.conflict
      ? ` — conflict: ${c.conflict}; not overwritten`
      : c.protectedBy
        ? ` — protected, decides what runs on the host (${c.protectedBy}): asks on its own`
        : ""
  }${stripped ? ` — ${stripped}` : ""}`;
};

/** The names, up to the bound, then one line for the rest. */
export function namesText(changes: ListedChange[], limit = APPLY_BOUNDS.names): string {
  const lines = changes.slice(0, limit).map(changeLine);
  if (changes.length > limit)
    lines.push(
      `- … and ${changes.length - limit} more change${changes.length - limit === 1 ? "" : "s"} not named here (all ${changes.length} are applied; \`/changes\` lists every one)`,
    );
  const stripped = changes.filter((c) => strippedBits(c)).length;
  if (stripped > 0)
    lines.push(
      "",
      `${stripped} file${stripped === 1 ? "" : "s"} ask${stripped === 1 ? "s" : ""} for setuid, setgid or sticky bits: the host gets ${stripped === 1 ? "it" : "them"} without those bits.`,
    );
  return lines.join("\n");
}

/** One change's preview: the snapshot against the host's side, read without following links. */
export async function changePreview(realRoot: string, hostRoot: string, change: Change): Promise<ToolDisplay> {
  const path = join(hostRoot, change.path);
  if (change.type === "link")
    return { type: "text", text: `${change.kind} link \`${change.path}\` -> ${change.entry?.target ?? ""}` };
  const host = change.kind === "added" ? undefined : await readHostEntry(realRoot, change.path, 4 * 1024 * 1024);
  const after = change.kind === "deleted" ? Buffer.alloc(0) : change.snapshot?.data;
  if (change.kind !== "deleted" && !after)
    return { type: "text", text: `${change.kind} large file \`${change.path}\` (${change.snapshot?.size ?? 0} bytes)` };
  if (host?.kind === "link")
    return {
      type: "text",
      text: `${change.kind} \`${change.path}\`: ${change.kind === "deleted" ? "removes" : "replaces"} the host's link (-> ${host.target}), which is not followed`,
    };
  const before = host?.kind === "file" ? host.data : undefined;
  if (host?.kind === "file" && !before)
    return { type: "text", text: `${change.kind} large file \`${change.path}\` (${host.size} bytes on the host)` };
  if ((after && looksBinary(after)) || (before && looksBinary(before)))
    return { type: "text", text: `${change.kind} binary file \`${change.path}\`` };
  return { type: "diff", path, oldText: before?.toString("utf8") ?? null, newText: after?.toString("utf8") ?? "" };
}

const sizeOf = (d: ToolDisplay) =>
  d.type === "diff" ? (d.oldText?.length ?? 0) + d.newText.length : d.type === "text" ? d.text.length : 0;

/** The dialog's content: the list, the previews up to the bounds, and a line for the changes without one. */
export async function dialogContent(
  realRoot: string,
  hostRoot: string,
  changes: ListedChange[],
  bounds = APPLY_BOUNDS,
): Promise<ToolDisplay[]> {
  const previews: ToolDisplay[] = [];
  let bytes = 0;
  const unshown: string[] = [];
  for (const change of changes) {
    if (previews.length >= bounds.diffs || bytes >= bounds.diffBytes) {
      unshown.push(change.path);
      continue;
    }
    const preview = await changePreview(realRoot, hostRoot, change);
    if (bytes + sizeOf(preview) > bounds.diffBytes && previews.length > 0) {
      unshown.push(change.path);
      bytes = bounds.diffBytes;
      continue;
    }
    bytes += sizeOf(preview);
    previews.push(preview);
  }
  const rest =
    unshown.length > 0
      ? [
          {
            type: "text" as const,
            text: `${unshown.length} more change${unshown.length === 1 ? "" : "s"} not shown as diffs (past ${bounds.diffs} diffs or ${Math.round(bounds.diffBytes / 1024)} KB), applied as listed above: ${unshown
              .slice(0, 50)
              .map((p) => `\`${p}\``)
              .join(", ")}${unshown.length > 50 ? `, … (${unshown.length - 50} more)` : ""}`,
          },
        ]
      : [];
  return [{ type: "text", text: namesText(changes, bounds.names) }, ...previews, ...rest];
}
