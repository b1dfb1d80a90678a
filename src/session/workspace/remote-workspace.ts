import type { HostKey } from "../../backends/ssh/ssh-connection.js";
import type { HostKeyAnswer } from "../../backends/ssh/ssh-host-trust.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { SessionFlags } from "../services.js";
import type { TrustQuestion } from "../../gate/seams/through-door.js";
import { relativeWithin } from "../../util/path-within.js";
import type { PlaceTarget } from "./place.js";
import { targetForUrl } from "./place-kinds.js";
import { remoteOf, type RemoteSelection } from "./ssh/ssh-place.js";

// Which sessions work elsewhere, and where: `--workspace URL` (or `--remote ssh://...`) puts every
// session there; config.toml `[workspace.projects]` and `[remote.projects]` map a local project root
// to a URL, so a session opened under that root works there (for ssh://, under the remote path, at the
// same relative directory); `[workspace] default` applies to every other session. The session keeps
// its local cwd for its own records (session list, project config); its tools, prompt and commands
// see the workspace's paths. Which kind a URL names, and what it does, is the kind's (place-kinds.ts).

export type { RemoteSelection } from "./ssh/ssh-place.js";
export { remoteMentions } from "./mentions.js";

/** Where a session works when a URL is chosen for it (place-kinds.ts); undefined: here. */
export type WorkspaceSelection = PlaceTarget & { kind: string; source: string };

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
  const pick = (url: string, source: string, local?: string): WorkspaceSelection => ({
    ...targetForUrl(url, { cwd, roots, source, ...(local !== undefined ? { local } : {}) }),
    source,
  });
  if (flags.workspace) return pick(flags.workspace, "--workspace");
  if (flags.remote) return pick(flags.remote, "--remote");
  let best: { local: string; url: string; source: string } | undefined;
  const consider = (table: Record<string, string>, name: string) => {
    for (const [local, url] of Object.entries(table))
      if (relativeWithin(local, cwd) !== undefined && (!best || local.length > best.local.length))
        best = { local, url, source: `config.toml [${name}] "${local}"` };
  };
  consider(config.workspace.projects, "workspace.projects");
  consider(config.remote.projects, "remote.projects");
  if (best) return pick(best.url, best.source, best.local);
  if (config.workspace.default) return pick(config.workspace.default, "config.toml [workspace] default");
  return undefined;
}

/** The SSH remote for a session, undefined when it works here or elsewhere. */
export function selectRemote(
  cwd: string,
  roots: readonly string[],
  flags: SessionFlags,
  config: DeepAcpConfig,
): RemoteSelection | undefined {
  const selection = selectWorkspace(cwd, roots, flags, config);
  return selection && remoteOf(selection);
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
