// Decisions in a remote (SSH) workspace follow the remote's links, not this machine's: a hostile
// remote repository's `config.txt -> ~/.ssh/id_rsa` is neither embedded as an @mention nor
// rewritten by rewind. The remote file system is a fake RealPathFs (what the SSH backend supplies).
import type { Stats } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { RealPathFs } from "../../../src/backends/paths/real-path.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import { decideMention } from "../../../src/gate/seams/mention.js";
import { createRestoreScope } from "../../../src/session/turn-gate.js";
import type { Workspace } from "../../../src/session/workspace/workspace.js";
import { restoreFiles } from "../../../src/transcript/rewind.js";

// Paths that exist only on the "remote": resolved locally they would lead to themselves.
const HOME = "/deep-acp-remote-only/home/dev";
const PROJECT = `${HOME}/project`;
const SECRET = `${HOME}/.ssh/id_rsa`;

type Entry = { kind: "dir" } | { kind: "file"; nlink: number } | { kind: "link"; to: string };

function createFakeRemoteFs(entries: Record<string, Entry>): RealPathFs {
  const all = new Map<string, Entry>(Object.entries(entries));
  for (const path of [...all.keys()])
    for (let dir = dirname(path); dir !== "/"; dir = dirname(dir)) if (!all.has(dir)) all.set(dir, { kind: "dir" });
  const missing = (path: string) => Object.assign(new Error(`ENOENT: ${path}`), { code: "ENOENT" });
  const stats = (entry: Entry): Stats =>
    ({
      isDirectory: () => entry.kind === "dir",
      isFile: () => entry.kind === "file",
      isSymbolicLink: () => entry.kind === "link",
      nlink: entry.kind === "file" ? entry.nlink : 1,
    }) as Stats;
  const realpath = async (path: string, hops = 0): Promise<string> => {
    let current = "/";
    for (const part of resolve(path).split("/").filter(Boolean)) {
      const next = join(current, part);
      const entry = all.get(next);
      if (!entry) throw missing(next);
      if (entry.kind === "link") {
        if (hops > 40) throw Object.assign(new Error("ELOOP"), { code: "ELOOP" });
        current = await realpath(resolve(current, entry.to), hops + 1);
      } else current = next;
    }
    return current;
  };
  return {
    realpath: (path) => realpath(path),
    stat: async (path) => stats(all.get(await realpath(path))!),
    lstat: async (path) => {
      const entry = all.get(resolve(path));
      if (!entry) throw missing(path);
      return stats(entry);
    },
    readlink: async (path) => {
      const entry = all.get(resolve(path));
      if (entry?.kind !== "link") throw Object.assign(new Error("EINVAL"), { code: "EINVAL" });
      return entry.to;
    },
  };
}

const remoteFs = createFakeRemoteFs({
  [`${PROJECT}/ok.txt`]: { kind: "file", nlink: 1 },
  [`${PROJECT}/config.txt`]: { kind: "link", to: "../.ssh/id_rsa" },
  [`${PROJECT}/hard.txt`]: { kind: "file", nlink: 2 },
  [SECRET]: { kind: "file", nlink: 1 },
});

describe("@mentions in a remote workspace", () => {
  it("refuses a project file that links outside the project on the remote, and embeds a plain one", async () => {
    const scope = { roots: [PROJECT], virtualPrefixes: [], fs: remoteFs };
    const refused = (text: string) => ({ ok: false, reason: expect.stringContaining(text) as unknown });
    expect(await decideMention(`${PROJECT}/config.txt`, scope)).toEqual(refused(SECRET));
    expect(await decideMention(`${PROJECT}/hard.txt`, scope)).toEqual(refused("hard links"));
    expect(await decideMention(`${PROJECT}/ok.txt`, scope)).toEqual({
      ok: true,
      approved: new Map([[`${PROJECT}/ok.txt`, `${PROJECT}/ok.txt`]]),
    });
  });
});

describe("rewind in a remote workspace", () => {
  it("reports a file that links outside the roots on the remote instead of writing it", async () => {
    const files = createStateBackend();
    await files.write(`${PROJECT}/config.txt`, "agent wrote this\n");
    await files.write(`${PROJECT}/ok.txt`, "agent wrote this\n");
    const workspace = {
      roots: [PROJECT],
      virtualPrefixes: [],
      remote: { url: "ssh://dev@127.0.0.1/", source: "test", backend: { realPathFs: remoteFs } },
      realPathFs: remoteFs,
    } as unknown as Workspace;
    const changes = [
      { path: `${PROJECT}/config.txt`, before: "before\n", after: "agent wrote this\n" },
      { path: `${PROJECT}/ok.txt`, before: "before\n", after: "agent wrote this\n" },
    ];
    const report = await restoreFiles(changes, files, createRestoreScope(workspace));
    expect(report.restored).toEqual([`${PROJECT}/ok.txt`]);
    expect(report.notRestored).toEqual([
      { path: `${PROJECT}/config.txt`, reason: expect.stringContaining("outside the session's current folders") },
    ]);
    expect((await files.readRaw(`${PROJECT}/config.txt`)).data?.content).toBe("agent wrote this\n");
    expect((await files.readRaw(`${PROJECT}/ok.txt`)).data?.content).toBe("before\n");
  });
});
