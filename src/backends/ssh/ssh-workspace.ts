import { join } from "node:path";
import { createSshBackend, type SshBackend } from "./ssh-backend.js";
import { createSshConnection, type HostKey, type SshConnection, type SshEndpoint } from "./ssh-connection.js";
import { createHostTrust, type HostKeyAnswer } from "./ssh-host-trust.js";
import { createKnownHostsFile } from "./ssh-known-hosts.js";
import {
  formatRemoteUrl,
  loadIdentities,
  resolveHost,
  type RemoteSpec,
  type ResolvedHost,
  type ResolveHostOptions,
} from "./ssh-target.js";

// Everything needed to reach a remote workspace from a `ssh://` spec: the host as ~/.ssh/config
// describes it, keys from ssh-agent and identity files, known_hosts checks with a dialog for unknown
// keys, one connection per host shared by the sessions working there, and the backend on top.
// Nothing connects until the first operation.

export type OpenSshWorkspaceOptions = {
  spec: RemoteSpec;
  /** HOME: whose ~/.ssh (config, keys, known_hosts) is used. */
  home: string;
  /** --trust-remote-host: accept an unknown host key for this run. */
  trustUnknownHost?: boolean;
  /** The editor's dialog for an unknown host key; absent in headless runs. */
  askHostKey?: (key: HostKey, target: string) => Promise<HostKeyAnswer>;
  /** Default 15. */
  connectTimeoutSeconds?: number;
  defaultTimeoutMs?: number;
  maxOutputChars?: number;
  /** Test seam: `ssh` binary for ~/.ssh/config lookups (false = defaults only). */
  sshBinary?: ResolveHostOptions["sshBinary"];
  /** Default process.env.SSH_AUTH_SOCK. */
  agentSocket?: string;
};

type PoolEntry = { connection: SshConnection; users: number; askers: Array<(key: HostKey) => Promise<HostKeyAnswer>> };

/** One connection per host (and login) in this process, shared by every session that works there. */
const pool = new Map<string, PoolEntry>();

function poolKey(endpoint: SshEndpoint, trustUnknown: boolean): string {
  const hops: string[] = [];
  for (let hop: SshEndpoint | undefined = endpoint; hop; hop = hop.jump)
    hops.push(`${hop.username}@${hop.host}:${hop.port}`);
  return `${hops.join(" via ")}${trustUnknown ? " (trust unknown)" : ""}`;
}

/** A session's share of a pooled connection: closing it closes the connection when nobody else uses it. */
function lease(key: string, entry: PoolEntry, ask: PoolEntry["askers"][number] | undefined): SshConnection {
  let released = false;
  return {
    ...entry.connection,
    async close() {
      if (released) return;
      released = true;
      entry.users--;
      if (ask) entry.askers.splice(entry.askers.indexOf(ask), 1);
      if (entry.users > 0) return;
      pool.delete(key);
      await entry.connection.close();
    },
  };
}

export async function openSshWorkspace(options: OpenSshWorkspaceOptions): Promise<SshBackend> {
  const { spec, home } = options;
  const resolved = await resolveHost(spec, {
    home,
    ...(options.sshBinary !== undefined ? { sshBinary: options.sshBinary } : {}),
    ...(options.agentSocket !== undefined ? { agentSocket: options.agentSocket } : {}),
  });
  const url = formatRemoteUrl(spec);
  const ask = options.askHostKey ? (key: HostKey) => options.askHostKey!(key, url) : undefined;
  const trustUnknown = options.trustUnknownHost ?? false;
  const key = poolKey(resolved, trustUnknown);
  let entry = pool.get(key);
  if (!entry) {
    // Jump hosts are authenticated with the same agent and keys (theirs included).
    const files = new Set(resolved.identityFiles);
    for (let hop = resolved.jump as ResolvedHost | undefined; hop; hop = hop.jump as ResolvedHost | undefined)
      for (const f of hop.identityFiles ?? []) files.add(f);
    const identities = await loadIdentities([...files]);
    const created: PoolEntry = { connection: undefined as unknown as SshConnection, users: 0, askers: [] };
    // An unknown key is asked about in the session that uses the connection most recently.
    const trust = createHostTrust({
      knownHosts: createKnownHostsFile(join(home, ".ssh", "known_hosts")),
      trustUnknown,
      ask: (hostKey) => {
        const latest = created.askers.at(-1);
        return latest ? latest(hostKey) : Promise.resolve("reject");
      },
    });
    created.connection = createSshConnection({
      endpoint: resolved,
      auth: { ...(resolved.agentSocket ? { agentSocket: resolved.agentSocket } : {}), identities },
      verifyHostKey: trust.verify,
      confirmHostKey: trust.confirm,
      connectTimeoutMs: (options.connectTimeoutSeconds ?? 15) * 1000,
    });
    entry = pool.get(key) ?? created;
    pool.set(key, entry);
  }
  entry.users++;
  if (ask) entry.askers.push(ask);
  return createSshBackend({
    connection: lease(key, entry, ask),
    rootDir: spec.path,
    id: url,
    ...(options.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
    ...(options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
  });
}
