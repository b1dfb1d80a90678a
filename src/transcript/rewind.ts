import { backendForCall } from "../backends/paths/approved-targets.js";
import type { BackendProtocol } from "../backends/protocol.js";
import { decideRestore, type RestoreScope } from "../gate/seams/restore.js";
import { errorMessage } from "../util/errors.js";
import type { SessionRecord } from "./restore.js";

export type RewindReport = {
  /** Files put back as they were before the rewound message. */
  restored: string[];
  /** Files left alone, with the reason (changed since, deleted, not text...). */
  notRestored: Array<{ path: string; reason: string }>;
};

type FileChange = { path: string; before: string | null; after: string };

/** Edits the agent made in the given records, oldest first, from the diffs it reported. */
export function fileChanges(records: readonly SessionRecord[]): FileChange[] {
  const changes: FileChange[] = [];
  for (const record of records) {
    if (record.t !== "tool_done" || record.status !== "completed") continue;
    for (const item of record.content)
      if (item.type === "diff") changes.push({ path: item.path, before: item.oldText, after: item.newText });
  }
  return changes;
}

/**
 * Undoes the agent's edits newest first. A file is restored only when it still holds exactly what
 * the agent wrote: if anyone changed it since, it is left alone and reported, never clobbered. Only
 * what the gate allows without a dialog is touched (src/gate/restore.ts: real paths inside the
 * session's current roots); the rest is reported as not restored.
 */
export async function restoreFiles(
  changes: readonly FileChange[],
  backend: BackendProtocol,
  scope: RestoreScope,
): Promise<RewindReport> {
  const report: RewindReport = { restored: [], notRestored: [] };
  const expected = new Map<string, string | null>();
  const skipped = new Set<string>();
  for (const change of [...changes].reverse()) {
    if (skipped.has(change.path)) continue;
    const allowed = await decideRestore(change.path, scope);
    if (!allowed.ok) {
      skipped.add(change.path);
      report.notRestored.push({ path: change.path, reason: allowed.reason });
      continue;
    }
    // Bound to the real path the restore was decided on: a link swapped in since is refused.
    const pinned = backendForCall(backend, allowed.approved);
    const current = expected.has(change.path) ? expected.get(change.path)! : await currentText(pinned, change.path);
    if (current !== change.after) {
      skipped.add(change.path);
      report.notRestored.push({
        path: change.path,
        reason: current === null ? "deleted since the agent wrote it" : "changed since the agent wrote it",
      });
      continue;
    }
    try {
      if (change.before === null) {
        const removed = await pinned.delete?.(change.path);
        if (!pinned.delete || removed?.error) throw new Error(removed?.error ?? "this backend cannot delete files");
      } else {
        const written = await pinned.write(change.path, change.before!);
        if (written.error) throw new Error(written.error);
      }
      expected.set(change.path, change.before);
    } catch (error) {
      skipped.add(change.path);
      report.notRestored.push({ path: change.path, reason: errorMessage(error) });
    }
  }
  for (const path of expected.keys()) if (!skipped.has(path)) report.restored.push(path);
  return report;
}

async function currentText(backend: BackendProtocol, path: string): Promise<string | null> {
  const raw = await backend.readRaw(path);
  if (raw.error || !raw.data) return null;
  return typeof raw.data.content === "string" ? raw.data.content : Buffer.from(raw.data.content).toString("utf8");
}
