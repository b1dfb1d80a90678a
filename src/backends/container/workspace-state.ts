import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-file.js";
import type { Baseline } from "./project-archive.js";

// What the agent keeps about each session container, on the host (the container cannot change it):
// where it came from and, in copy mode, the baseline, i.e. every file as it was copied in, which
// /changes compares the container against and /apply checks the host against (a host file that no
// longer matches its baseline was changed on the host since: a conflict). One file per session in
// ~/.deepagents/.state/workspaces/, 0600.

export type WorkspaceRecord = {
  sessionId: string;
  containerId: string;
  url: string;
  mount: "copy" | "bind";
  image: string;
  hostRoot: string;
  containerRoot: string;
  createdAt: string;
  /** Copy mode only. */
  baseline?: Baseline;
};

export type WorkspaceStateStore = ReturnType<typeof createWorkspaceStateStore>;

export function createWorkspaceStateStore(stateDir: string) {
  const dir = join(stateDir, "workspaces");
  const file = (sessionId: string) => {
    if (!/^[A-Za-z0-9_-]{1,128}$/.test(sessionId)) throw new Error(`not a session id: ${sessionId.slice(0, 80)}`);
    return join(dir, `${sessionId}.json`);
  };
  return {
    async load(sessionId: string): Promise<WorkspaceRecord | undefined> {
      const text = await readFile(file(sessionId), "utf8").catch(() => undefined);
      if (text === undefined) return undefined;
      try {
        return JSON.parse(text) as WorkspaceRecord;
      } catch {
        return undefined;
      }
    },
    async save(record: WorkspaceRecord): Promise<void> {
      await writeFileAtomic(file(record.sessionId), JSON.stringify(record));
    },
    async remove(sessionId: string): Promise<void> {
      await rm(file(sessionId), { force: true });
    },
    async list(): Promise<WorkspaceRecord[]> {
      const names = await readdir(dir).catch(() => [] as string[]);
      const records = await Promise.all(
        names.filter((n) => n.endsWith(".json")).map((n) => this.load(n.slice(0, -".json".length))),
      );
      return records.filter((r): r is WorkspaceRecord => r !== undefined);
    },
  };
}
