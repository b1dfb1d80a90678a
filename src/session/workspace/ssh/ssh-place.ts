import { posix } from "node:path";
import { describeSshHealth, type SshHealth } from "../../../backends/ssh/ssh-backend.js";
import { formatRemoteUrl, parseRemoteUrl, type RemoteSpec } from "../../../backends/ssh/ssh-target.js";
import { openSshWorkspace } from "../../../backends/ssh/ssh-workspace.js";
import { relativeWithin } from "../../../util/path-within.js";
import { remoteMentions } from "../mentions.js";
import type { Place, PlaceAt, PlaceCheckOptions, PlaceKind, PlaceSetup, PlaceTarget } from "../place.js";

// An SSH host (ssh://[user@]host[:port]/path): files and commands on the remote; the editor's fs and
// terminals and the local sandbox never see remote paths. A URL mapped from a local project root
// keeps the session's path under it; one from --workspace or a default is the fixed path.

export type RemoteSelection = {
  spec: RemoteSpec;
  /** ssh://... of the session's workspace root. */
  url: string;
  /** The session's working directory on the remote. */
  cwd: string;
  /** Remote roots (cwd first). */
  roots: string[];
  /** Where the choice came from (for /status and doctor). */
  source: string;
  /** Local directories with no remote counterpart (dropped from the roots). */
  unmapped: string[];
};

export const sshPlace: PlaceKind = {
  name: "ssh",
  schemes: ["ssh"],
  usage: "ssh://[user@]host[:port]/absolute/path",
  select: (url, at) => sshTarget(remoteAt(url, at)),
};

export function sshTarget(remote: RemoteSelection): PlaceTarget & { remote: RemoteSelection } {
  return {
    url: remote.url,
    remote,
    open: (setup) => openRemote(setup, remote),
    check: (options) => checkRemote(remote, options),
  };
}

/** The SSH remote a target stands for; undefined for another kind's. */
export function remoteOf(target: PlaceTarget): RemoteSelection | undefined {
  return (target as Partial<ReturnType<typeof sshTarget>>).remote;
}

/** `local` is the local root the URL stands for (the session's path under it is kept), else fixed. */
function remoteAt(url: string, { cwd, roots, source, local }: PlaceAt): RemoteSelection {
  const base = parseRemoteUrl(url);
  if (local === undefined)
    return {
      spec: base,
      url: formatRemoteUrl(base),
      cwd: base.path,
      roots: [base.path],
      source,
      unmapped: roots.filter((r) => r !== cwd),
    };
  const map = (path: string) => {
    const rel = relativeWithin(local, path);
    return rel === undefined ? undefined : posix.join(base.path, rel.split("\\").join("/"));
  };
  const remoteCwd = map(cwd)!;
  const remoteRoots = [remoteCwd];
  const unmapped: string[] = [];
  for (const root of roots) {
    if (root === cwd) continue;
    const mapped = map(root);
    if (mapped) remoteRoots.push(mapped);
    else unmapped.push(root);
  }
  return {
    spec: { ...base, path: remoteCwd },
    url: formatRemoteUrl({ ...base, path: remoteCwd }),
    cwd: remoteCwd,
    roots: remoteRoots,
    source,
    unmapped,
  };
}

async function openRemote({ options, limits, diagnostics }: PlaceSetup, remote: RemoteSelection): Promise<Place> {
  const { config, paths } = options;
  const backend = await openSshWorkspace({
    spec: remote.spec,
    home: paths.home,
    trustUnknownHost: options.flags.trustRemoteHost ?? false,
    connectTimeoutSeconds: config.remote.connect_timeout_seconds,
    ...limits,
    ...(options.askHostKey ? { askHostKey: options.askHostKey } : {}),
  });
  for (const dir of remote.unmapped)
    diagnostics.push({
      severity: "warning",
      source: "remote",
      message: `${dir} has no remote counterpart; it is not part of this remote session`,
    });
  return {
    files: backend,
    shell: backend,
    cwd: remote.cwd,
    roots: remote.roots,
    // Links are followed on the remote; nothing there runs on this machine.
    realPathFs: backend.realPathFs,
    sandboxed: false,
    mentions: (blocks, localCwd) => remoteMentions(blocks, localCwd, remote.cwd),
    status: async () => ({
      label: "Remote workspace",
      text: `${describeSshHealth(remote.url, await backend.health())} (from ${remote.source})`,
    }),
    dispose: () => backend.close(),
  };
}

/** doctor: connects (no dialog: an unknown host key is reported with what to do), checks, disconnects. */
async function checkRemote(remote: RemoteSelection, options: PlaceCheckOptions) {
  let health: SshHealth;
  try {
    const backend = await openSshWorkspace({
      spec: remote.spec,
      home: options.home,
      trustUnknownHost: options.trustRemoteHost,
      connectTimeoutSeconds: options.config.remote.connect_timeout_seconds,
    });
    health = await backend.health();
    await backend.close();
  } catch (error) {
    health = {
      target: remote.url,
      connected: false,
      reconnects: 0,
      channelsOpened: 0,
      ok: false,
      error: (error as Error).message,
    };
  }
  return { ok: health.ok, summary: describeSshHealth(remote.url, health), title: "Remote workspace" };
}
