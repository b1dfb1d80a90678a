import type { ExecuteResponse } from "../protocol.js";
import { holdPaths, type HeldPaths, type HeldSurface } from "./held-record.js";
import { restoreHeld } from "./held-restore.js";

// One command the host does not control, held: the record is taken just before it (the state the
// gate's approvals and the previous checks left), checked and repaired just after (held-*.ts). Used
// by the bubblewrap sandbox and by bind-mode containers (their commands and the dev container's
// postCreateCommand), each with its own list of surfaces.

export type HeldGuard = {
  /** The record now (for mounts built from it); `run` the command; the repair notes after. */
  around<T>(run: (held: HeldPaths) => Promise<T>): Promise<{ result: T; notes: string[] }>;
};

export type HeldSource = () => Promise<{ roots: readonly string[]; surfaces: readonly HeldSurface[] }>;

export function createHeldGuard(source: HeldSource): HeldGuard {
  return {
    async around(run) {
      const { roots, surfaces } = await source();
      const held = await holdPaths(roots, surfaces);
      const notes: string[] = [];
      try {
        return { result: await run(held), notes };
      } finally {
        // Also when the command failed or was cancelled: what it did before is checked the same.
        notes.push(...(await restoreHeld(held)));
      }
    },
  };
}

/** The command's output with one `[deep-acp]` line per repair. */
export function withHeldNotes(result: ExecuteResponse, notes: readonly string[]): ExecuteResponse {
  if (notes.length === 0) return result;
  const lines = notes.map((note) => `[deep-acp] ${note}, since it decides what runs on the host.`);
  const sep = result.output === "" || result.output.endsWith("\n") ? "" : "\n";
  return { ...result, output: `${result.output}${sep}${lines.join("\n")}` };
}
