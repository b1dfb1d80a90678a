// Persisted MCP trust decisions in <stateDir>/mcp_trust.json (0600 in a 0700 dir, atomic writes).
// Approvals are bound to project root + server name + definition fingerprint; the "never" list is
// bound to project root + name only, so it survives edits of the definition.

import { readFile as fsReadFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../util/atomic-file.js";
import { errorMessage } from "../../util/errors.js";

export type McpApproval = {
  projectRoot: string;
  name: string;
  fingerprint: string;
  approvedAt: string;
  /** The definition's own fingerprint, to tell a changed definition from changed scripts. */
  definition?: string;
  /** Digests of the project files the server runs, as approved (mcp/script-trust.ts). */
  scripts?: Record<string, string>;
};

/** What an approval is bound to besides its fingerprint, for saying what changed. */
export type McpApprovalDetail = Pick<McpApproval, "definition" | "scripts">;
export type McpDenial = { projectRoot: string; name: string; deniedAt: string };

export type McpTrustSnapshot = {
  approvals: McpApproval[];
  denied: McpDenial[];
  /** Set when the file exists but cannot be read or parsed; callers then fail closed. */
  error?: string;
};

export interface McpTrustStore {
  readonly path: string;
  load(): Promise<McpTrustSnapshot>;
  /** Replaces any earlier approval of the same project root + name. */
  approve(projectRoot: string, name: string, fingerprint: string, detail?: McpApprovalDetail): Promise<void>;
  /** Adds to the "never" list and drops approvals of that name. */
  deny(projectRoot: string, name: string): Promise<void>;
  /** Removes approvals and denials of that name. */
  forget(projectRoot: string, name: string): Promise<void>;
}

export type McpTrustStoreOptions = {
  /** `~/.deepagents/.state` (userPaths().stateDir). */
  stateDir: string;
  /** Default: () => new Date(). */
  now?: () => Date;
  /** Default: fs/promises readFile (utf8). */
  readFile?: (path: string) => Promise<string>;
  /** Default: writeFileAtomic with 0600/0700. */
  writeFile?: (path: string, data: string) => Promise<void>;
};

export class McpTrustStoreError extends Error {
  override name = "McpTrustStoreError";
}

export function createMcpTrustStore(options: McpTrustStoreOptions): McpTrustStore {
  const path = join(options.stateDir, "mcp_trust.json");
  const now = options.now ?? (() => new Date());
  const read = options.readFile ?? ((file: string) => fsReadFile(file, "utf8"));
  const write =
    options.writeFile ?? ((file: string, data: string) => writeFileAtomic(file, data, { mode: 0o600, dirMode: 0o700 }));
  // Serializes read-modify-write cycles of this process; other processes can still interleave,
  // which at worst loses one of two simultaneous decisions (the user is then asked again).
  let queue: Promise<unknown> = Promise.resolve();

  async function load(): Promise<McpTrustSnapshot> {
    let text: string;
    try {
      text = await read(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return { approvals: [], denied: [] };
      return { approvals: [], denied: [], error: `cannot read ${path}: ${errorMessage(error)}` };
    }
    try {
      return parseSnapshot(JSON.parse(text));
    } catch (error) {
      return { approvals: [], denied: [], error: `${path} is corrupt: ${errorMessage(error)}` };
    }
  }

  function update(change: (snapshot: McpTrustSnapshot) => void): Promise<void> {
    const run = queue.then(async () => {
      const snapshot = await load();
      // Rewriting an unreadable file would silently drop the user's "never" list.
      if (snapshot.error)
        throw new McpTrustStoreError(`${snapshot.error}; fix or delete it to save MCP trust decisions`);
      change(snapshot);
      const body = { version: 1, approvals: snapshot.approvals, denied: snapshot.denied };
      await write(path, `${JSON.stringify(body, null, 2)}\n`);
    });
    queue = run.catch(() => undefined);
    return run;
  }

  const same = (projectRoot: string, name: string) => (row: { projectRoot: string; name: string }) =>
    row.projectRoot === projectRoot && row.name === name;

  return {
    path,
    load,
    approve: (projectRoot, name, fingerprint, detail = {}) =>
      update((snapshot) => {
        snapshot.approvals = snapshot.approvals.filter((row) => !same(projectRoot, name)(row));
        snapshot.approvals.push({ projectRoot, name, fingerprint, approvedAt: now().toISOString(), ...detail });
      }),
    deny: (projectRoot, name) =>
      update((snapshot) => {
        snapshot.approvals = snapshot.approvals.filter((row) => !same(projectRoot, name)(row));
        if (!snapshot.denied.some(same(projectRoot, name)))
          snapshot.denied.push({ projectRoot, name, deniedAt: now().toISOString() });
      }),
    forget: (projectRoot, name) =>
      update((snapshot) => {
        snapshot.approvals = snapshot.approvals.filter((row) => !same(projectRoot, name)(row));
        snapshot.denied = snapshot.denied.filter((row) => !same(projectRoot, name)(row));
      }),
  };
}

function parseSnapshot(value: unknown): McpTrustSnapshot {
  if (typeof value !== "object" || value === null) throw new Error("not a JSON object");
  const record = value as Record<string, unknown>;
  const rows = (key: string) => {
    const list = record[key] ?? [];
    if (!Array.isArray(list)) throw new Error(`"${key}" is not a list`);
    return list.filter((row): row is Record<string, unknown> => typeof row === "object" && row !== null);
  };
  const text = (row: Record<string, unknown>, key: string) =>
    typeof row[key] === "string" ? (row[key] as string) : "";
  return {
    approvals: rows("approvals")
      .map((row): McpApproval => {
        const scripts = row.scripts;
        const valid =
          typeof scripts === "object" &&
          scripts !== null &&
          Object.values(scripts).every((value) => typeof value === "string");
        return {
          projectRoot: text(row, "projectRoot"),
          name: text(row, "name"),
          fingerprint: text(row, "fingerprint"),
          approvedAt: text(row, "approvedAt"),
          ...(text(row, "definition") ? { definition: text(row, "definition") } : {}),
          ...(valid ? { scripts: scripts as Record<string, string> } : {}),
        };
      })
      .filter((row) => row.projectRoot && row.name && row.fingerprint),
    denied: rows("denied")
      .map((row) => ({
        projectRoot: text(row, "projectRoot"),
        name: text(row, "name"),
        deniedAt: text(row, "deniedAt"),
      }))
      .filter((row) => row.projectRoot && row.name),
  };
}
