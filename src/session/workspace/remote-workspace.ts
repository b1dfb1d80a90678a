import { posix } from "node:path";
import type { HostKey } from "../../backends/ssh/ssh-connection.js";
import type { HostKeyAnswer } from "../../backends/ssh/ssh-host-trust.js";
import { formatRemoteUrl, parseRemoteUrl, type RemoteSpec } from "../../backends/ssh/ssh-target.js";
import { isContainerUrl, parseContainerUrl, type ContainerSpec } from "../../backends/container/container-url.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { PromptBlock } from "../../tools/types.js";
import type { SessionFlags } from "../services.js";
import type { TrustQuestion } from "../../extensions/index.js";
import { relativeWithin } from "../../util/path-within.js";

// Which sessions work elsewhere, and where: `--workspace URL` (or `--remote ssh://...`) puts every
// session there; config.toml `[workspace.projects]` and `[remote.projects]` map a local project root
// to a URL, so a session opened under that root works there (for ssh://, under the remote path, at the
// same relative directory); `[workspace] default` applies to every other session. The session keeps
// its local cwd for its own records (session list, project config); its tools, prompt and commands
// see the workspace's paths.

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

const inside = relativeWithin;

/** An ssh:// workspace: `local` is the local root it stands for (the session's path under it is kept), else fixed. */
function remoteAt(cwd: string, roots: readonly string[], url: string, source: string, local?: string): RemoteSelection {
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
    const rel = inside(local, path);
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

/** Where a session works: on an SSH host, in a container, or (undefined) here. */
export type WorkspaceSelection =
  { kind: "ssh"; remote: RemoteSelection } | { kind: "container"; spec: ContainerSpec; url: string; source: string };

/**
 * `--workspace` (or `--remote`), else the longest local root of `[workspace.projects]` and
 * `[remote.projects]` holding the cwd, else `[workspace] default`. Throws with a readable message on a
 * bad URL.
 */
export function selectWorkspace(
  cwd: string,
  roots: readonly string[],
  flags: SessionFlags,
  config: DeepAcpConfig,
): WorkspaceSelection | undefined {
  const pick = (url: string, source: string, local?: string): WorkspaceSelection =>
    isContainerUrl(url)
      ? { kind: "container", spec: parseContainerUrl(url), url, source }
      : { kind: "ssh", remote: remoteAt(cwd, roots, url, source, local) };
  if (flags.workspace) return pick(flags.workspace, "--workspace");
  if (flags.remote) return pick(flags.remote, "--remote");
  let best: { local: string; url: string; source: string } | undefined;
  const consider = (table: Record<string, string>, name: string) => {
    for (const [local, url] of Object.entries(table))
      if (inside(local, cwd) !== undefined && (!best || local.length > best.local.length))
        best = { local, url, source: `config.toml [${name}] "${local}"` };
  };
  consider(config.workspace.projects, "workspace.projects");
  consider(config.remote.projects, "remote.projects");
  if (best) return pick(best.url, best.source, best.local);
  if (config.workspace.default) return pick(config.workspace.default, "config.toml [workspace] default");
  return undefined;
}

/** The SSH remote for a session (doctor's check), undefined when it works here or in a container. */
export function selectRemote(
  cwd: string,
  roots: readonly string[],
  flags: SessionFlags,
  config: DeepAcpConfig,
): RemoteSelection | undefined {
  const selection = selectWorkspace(cwd, roots, flags, config);
  return selection?.kind === "ssh" ? selection.remote : undefined;
}

/** The editor dialog for a host key that known_hosts does not have. */
export function hostKeyQuestion(key: HostKey, url: string, knownHostsPath: string): TrustQuestion {
  const name = key.port === 22 ? key.host : `[${key.host}]:${key.port}`;
  return {
    key: `ssh-host-key-${key.fingerprint.replace(/[^A-Za-z0-9]/g, "").slice(0, 24)}`,
    title: `Trust the SSH host key of ${name}?`,
    body: [
      `The remote workspace \`${url}\` is on a host this machine has not seen before.`,
      "",
      `- host: \`${name}\``,
      `- key type: \`${key.type}\``,
      `- fingerprint: \`${key.fingerprint}\``,
      "",
      `Compare the fingerprint with the one the host's owner gives you (\`ssh-keygen -lf /etc/ssh/ssh_host_${key.type.replace(/^ssh-/, "").replace(/-.*$/, "")}_key.pub\` on the host). "Always" adds it to \`${knownHostsPath}\`.`,
    ].join("\n"),
    options: [
      { id: "once", name: "Trust this time", kind: "allow_once" },
      { id: "always", name: "Always (add to known_hosts)", kind: "allow_always" },
      { id: "reject", name: "Do not connect", kind: "reject_once" },
    ],
  };
}

export function hostKeyAnswer(optionId: string): HostKeyAnswer {
  return optionId === "once" || optionId === "always" ? optionId : "reject";
}

/**
 * File mentions arrive as local paths (the editor resolves them against its local project); in a
 * remote session those under the local cwd name the same file under the remote cwd.
 */
export function remoteMentions(blocks: readonly PromptBlock[], localCwd: string, remoteCwd: string): PromptBlock[] {
  return blocks.map((block) => {
    if (block.type !== "file") return block;
    const rel = inside(localCwd, block.path);
    return rel === undefined ? block : { ...block, path: rel === "" ? remoteCwd : posix.join(remoteCwd, rel) };
  });
}
