import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { userInfo } from "node:os";
import { join, posix } from "node:path";
import { withoutSecrets } from "../../util/secret-env.js";
import type { SshEndpoint, SshIdentity } from "./ssh-connection.js";

// Where a remote workspace is and how to log in: `ssh://[user@]host[:port]/abs/path`, with the host
// looked up in ~/.ssh/config (HostName, User, Port, IdentityFile, ProxyJump) through `ssh -G` when
// OpenSSH is installed. HOME decides which ~/.ssh is read: the OpenSSH client would read the passwd
// home's config, so its config file is passed explicitly with -F, and `~` in what it prints is
// expanded with HOME here.

export type RemoteSpec = { user?: string; host: string; port?: number; path: string };

export class RemoteSpecError extends Error {
  override name = "RemoteSpecError";
}

/** Parses `ssh://[user@]host[:port]/abs/path`. Throws RemoteSpecError with a message for the user. */
export function parseRemoteUrl(text: string): RemoteSpec {
  const usage = "expected ssh://[user@]host[:port]/absolute/path";
  if (!/^ssh:\/\//i.test(text)) throw new RemoteSpecError(`remote "${text}": ${usage}`);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new RemoteSpecError(`remote "${text}": ${usage}`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (!host) throw new RemoteSpecError(`remote "${text}" has no host: ${usage}`);
  if (url.password)
    throw new RemoteSpecError(
      `remote "${text}": passwords in the URL are not supported; use ssh-agent or an identity file`,
    );
  if (url.search || url.hash) throw new RemoteSpecError(`remote "${text}": unexpected "?" or "#": ${usage}`);
  const path = decodeURIComponent(url.pathname);
  if (!path.startsWith("/")) {
    throw new RemoteSpecError(`remote "${text}" needs an absolute path on the host: ${usage}`);
  }
  const port = url.port ? Number(url.port) : undefined;
  return {
    ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
    host,
    ...(port ? { port } : {}),
    path: posix.normalize(path),
  };
}

export function formatRemoteUrl(spec: RemoteSpec): string {
  const host = spec.host.includes(":") ? `[${spec.host}]` : spec.host;
  return `ssh://${spec.user ? `${encodeURIComponent(spec.user)}@` : ""}${host}${spec.port ? `:${spec.port}` : ""}${spec.path}`;
}

export type ResolvedHost = SshEndpoint & {
  identityFiles: string[];
  identitiesOnly: boolean;
  agentSocket?: string;
  viaSshConfig: boolean;
};

export type ResolveHostOptions = {
  home: string;
  /** Default: `ssh` on PATH; false skips ~/.ssh/config (defaults only). */
  sshBinary?: string | false;
  /** Default process.env.SSH_AUTH_SOCK. */
  agentSocket?: string;
  /** Default: the local user name (what ssh uses). */
  defaultUser?: string;
};

const DEFAULT_IDENTITIES = ["id_ed25519", "id_ecdsa", "id_rsa"];

function expandHome(path: string, home: string): string {
  return path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
}

/** `ssh -G` for one host; undefined when OpenSSH is not installed. */
function sshG(binary: string, args: string[]): Promise<Map<string, string[]> | undefined> {
  return new Promise((resolve) => {
    const child = spawn(binary, ["-G", ...args], {
      stdio: ["ignore", "pipe", "pipe"],
      // The user's environment minus secrets: ssh -G reads only its config files.
      env: { ...withoutSecrets(process.env), SSH_AUTH_SOCK: "" },
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    child.on("error", () => resolve(undefined));
    child.on("close", (code) => {
      if (code !== 0) {
        resolve(new Map([["__error", [err.trim() || `ssh -G exited with ${code}`]]]));
        return;
      }
      const map = new Map<string, string[]>();
      for (const line of out.split("\n")) {
        const space = line.indexOf(" ");
        if (space <= 0) continue;
        const key = line.slice(0, space).toLowerCase();
        map.set(key, [...(map.get(key) ?? []), line.slice(space + 1).trim()]);
      }
      resolve(map);
    });
  });
}

function parseHop(text: string): { user?: string; host: string; port?: number } {
  const trimmed = text.replace(/^ssh:\/\//, "");
  const at = trimmed.lastIndexOf("@");
  const user = at >= 0 ? trimmed.slice(0, at) : undefined;
  const rest = at >= 0 ? trimmed.slice(at + 1) : trimmed;
  const match = /^\[(.+)\](?::(\d+))?$/.exec(rest) ?? /^([^:]+)(?::(\d+))?$/.exec(rest);
  if (!match) throw new RemoteSpecError(`ProxyJump "${text}" is not [user@]host[:port]`);
  return { ...(user ? { user } : {}), host: match[1]!, ...(match[2] ? { port: Number(match[2]) } : {}) };
}

/** Resolves a host (an alias or a name) to where and as whom to connect, jump hosts included. */
export async function resolveHost(
  spec: { user?: string; host: string; port?: number },
  options: ResolveHostOptions,
  depth = 0,
): Promise<ResolvedHost> {
  if (depth > 5) throw new RemoteSpecError(`ProxyJump chain for ${spec.host} is too long (or loops)`);
  const binary = options.sshBinary === undefined ? "ssh" : options.sshBinary;
  const configFile = join(options.home, ".ssh", "config");
  const agentSocket = options.agentSocket ?? process.env.SSH_AUTH_SOCK;
  let config: Map<string, string[]> | undefined;
  if (binary !== false) {
    const args = ["-F", existsSync(configFile) ? configFile : "/dev/null"];
    if (spec.user) args.push("-l", spec.user);
    if (spec.port) args.push("-p", String(spec.port));
    config = await sshG(binary, [...args, "--", spec.host]);
    if (config?.has("__error")) throw new RemoteSpecError(`ssh -G ${spec.host}: ${config.get("__error")![0]}`);
  }
  const one = (key: string) => config?.get(key)?.[0];
  const user = spec.user ?? one("user") ?? options.defaultUser ?? userInfo().username;
  const host = one("hostname") ?? spec.host;
  const port = spec.port ?? Number(one("port") ?? 22);
  const identitiesOnly = one("identitiesonly") === "yes";
  const configured = (config?.get("identityfile") ?? []).map((f) => expandHome(f, options.home));
  const identityFiles =
    configured.length > 0 ? configured : DEFAULT_IDENTITIES.map((f) => join(options.home, ".ssh", f));
  const agent = one("identityagent");
  const agentPath =
    agent === "none" ? undefined : agent && agent !== "SSH_AUTH_SOCK" ? expandHome(agent, options.home) : agentSocket;
  const resolved: ResolvedHost = {
    host,
    port,
    username: user,
    identityFiles,
    identitiesOnly,
    ...(agentPath && !identitiesOnly ? { agentSocket: agentPath } : {}),
    viaSshConfig: config !== undefined,
  };
  const jump = one("proxyjump");
  if (jump && jump !== "none") {
    // "a,b": connect to a, through it to b, through b to the target.
    const hops = jump.split(",").map((h) => parseHop(h.trim()));
    let previous: SshEndpoint | undefined;
    for (const hop of hops) {
      const endpoint: SshEndpoint = await resolveHost(hop, options, depth + 1);
      previous = previous ? { ...endpoint, jump: previous } : endpoint;
    }
    resolved.jump = previous!;
  }
  return resolved;
}

/** Reads the identity files that exist (missing ones are skipped, as ssh does). */
export async function loadIdentities(files: readonly string[]): Promise<SshIdentity[]> {
  const identities: SshIdentity[] = [];
  for (const path of files) {
    try {
      identities.push({ path, key: await readFile(path) });
    } catch {
      // not there
    }
  }
  return identities;
}
