import { join } from "node:path";
import { createSshBackend, type SshBackend } from "./ssh-backend.js";
import { createSshConnection, type HostKey } from "./ssh-connection.js";
import { createHostTrust, type HostKeyAnswer } from "./ssh-host-trust.js";
import { createKnownHostsFile } from "./ssh-known-hosts.js";
import { formatRemoteUrl, loadIdentities, resolveHost, type RemoteSpec, type ResolveHostOptions } from "./ssh-target.js";

// Everything needed to reach a remote workspace from a `ssh://` spec: the host as ~/.ssh/config
// describes it, keys from ssh-agent and identity files, known_hosts checks with a dialog for unknown
// keys, one connection, and the backend on top. Nothing connects until the first operation.

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

export async function openSshWorkspace(options: OpenSshWorkspaceOptions): Promise<SshBackend> {
  const { spec, home } = options;
  const resolved = await resolveHost(spec, {
    home,
    ...(options.sshBinary !== undefined ? { sshBinary: options.sshBinary } : {}),
    ...(options.agentSocket !== undefined ? { agentSocket: options.agentSocket } : {}),
  });
  // Jump hosts are authenticated with the same agent and keys (theirs included).
  const files = new Set(resolved.identityFiles);
  for (let hop = resolved.jump as typeof resolved | undefined; hop; hop = hop.jump as typeof resolved | undefined) for (const f of hop.identityFiles ?? []) files.add(f);
  const identities = await loadIdentities([...files]);
  const knownHosts = createKnownHostsFile(join(home, ".ssh", "known_hosts"));
  const url = formatRemoteUrl(spec);
  const trust = createHostTrust({
    knownHosts,
    trustUnknown: options.trustUnknownHost ?? false,
    ...(options.askHostKey ? { ask: (key: HostKey) => options.askHostKey!(key, url) } : {}),
  });
  const connection = createSshConnection({
    endpoint: resolved,
    auth: { ...(resolved.agentSocket ? { agentSocket: resolved.agentSocket } : {}), identities },
    verifyHostKey: trust.verify,
    confirmHostKey: trust.confirm,
    connectTimeoutMs: (options.connectTimeoutSeconds ?? 15) * 1000,
  });
  return createSshBackend({
    connection,
    rootDir: spec.path,
    id: url,
    ...(options.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
    ...(options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
  });
}
