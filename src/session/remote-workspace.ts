import { posix, relative, isAbsolute } from "node:path";
import type { HostKey } from "../backends/ssh-connection.js";
import type { HostKeyAnswer } from "../backends/ssh-host-trust.js";
import { formatRemoteUrl, parseRemoteUrl, type RemoteSpec } from "../backends/ssh-target.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import type { PromptBlock } from "../turn/index.js";
import type { SessionFlags } from "./services.js";
import type { TrustQuestion } from "../extensions/index.js";

// Which sessions work on a remote machine, and where: `--remote` puts every session there;
// config.toml `[remote.projects]` maps a local project root to a remote path, so a session opened
// under that root works under the remote path (the same relative directory). The session keeps its
// local cwd for its own records (session list, project config); its tools, prompt and commands see
// the remote paths.

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

function inside(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === "") return "";
  return rel.startsWith("..") || isAbsolute(rel) ? undefined : rel;
}

/** The remote for a session, undefined for a local one; throws with a readable message on a bad spec. */
export function selectRemote(
  cwd: string,
  roots: readonly string[],
  flags: SessionFlags,
  config: DeepAcpConfig,
): RemoteSelection | undefined {
  if (flags.remote) {
    const spec = parseRemoteUrl(flags.remote);
    return {
      spec,
      url: formatRemoteUrl(spec),
      cwd: spec.path,
      roots: [spec.path],
      source: "--remote",
      unmapped: roots.filter((r) => r !== cwd),
    };
  }
  const projects = Object.entries(config.remote.projects);
  let best: { local: string; url: string; rel: string } | undefined;
  for (const [local, url] of projects) {
    const rel = inside(local, cwd);
    if (rel !== undefined && (!best || local.length > best.local.length)) best = { local, url, rel };
  }
  if (!best) return undefined;
  const base = parseRemoteUrl(best.url);
  const map = (path: string) => {
    const rel = inside(best.local, path);
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
    source: `config.toml [remote.projects] "${best.local}"`,
    unmapped,
  };
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
