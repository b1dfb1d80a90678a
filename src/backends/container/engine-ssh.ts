import { Agent } from "node:http";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Duplex } from "node:stream";
import { createSshConnection, describeTarget, type SshConnection } from "../ssh/ssh-connection.js";
import { createHostTrust } from "../ssh/ssh-host-trust.js";
import { createKnownHostsFile } from "../ssh/ssh-known-hosts.js";
import { loadIdentities, resolveHost, type ResolvedHost } from "../ssh/ssh-target.js";

// A Docker engine on another machine, reached as `docker -H ssh://user@host` reaches it: an SSH login
// there, and each HTTP connection of the Engine API is one exec channel running
// `docker system dial-stdio` (the far side's CLI relays it to its own engine socket). The login is
// the SSH workspaces' one (backends/ssh): ~/.ssh/config through `ssh -G`, ssh-agent, identity files,
// and the host key checked against ~/.ssh/known_hosts. An unknown or changed key is refused with what
// to do, never accepted silently: nobody can be asked on an engine connection (doctor, the workspaces
// command, a session's setup all run before or outside a dialog).
//
// docker-modem's own ssh transport makes a new SSH login per request and accepts any host key; here
// one login carries many channels, and more logins open when one is full (OpenSSH allows 10 sessions
// per connection, and each session's attached helper holds one channel for as long as it lives).

export type SshEngineHost = { user?: string; host: string; port?: number };

/** `ssh://[user@]host[:port]` (a trailing "/" is allowed, a path is not: the far side's CLI finds its engine). */
export function parseSshEngineHost(dockerHost: string): SshEngineHost {
  let url: URL;
  try {
    url = new URL(dockerHost);
  } catch {
    throw new Error(`DOCKER_HOST "${dockerHost}" is not a URL (expected ssh://[user@]host[:port])`);
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  if (url.protocol !== "ssh:" || !host)
    throw new Error(`DOCKER_HOST "${dockerHost}": expected ssh://[user@]host[:port]`);
  if (url.password) throw new Error(`DOCKER_HOST "${dockerHost}": no passwords in the URL; use ssh-agent or a key`);
  if (url.pathname && url.pathname !== "/")
    throw new Error(`DOCKER_HOST "${dockerHost}": a path is not supported (expected ssh://[user@]host[:port])`);
  return {
    ...(url.username ? { user: decodeURIComponent(url.username) } : {}),
    host,
    ...(url.port ? { port: Number(url.port) } : {}),
  };
}

/** What the far side last said on stderr when dial-stdio failed there, by DOCKER_HOST address. */
const complaints = new Map<string, string>();

export function farSideComplaint(address: string): string | undefined {
  return complaints.get(address);
}

export type SshEngineOptions = {
  /** The DOCKER_HOST it serves (names its complaints). */
  address?: string;
  /** Whose ~/.ssh (config, keys, known_hosts) is used. Default os.homedir(). */
  home?: string;
  /** Default env.SSH_AUTH_SOCK. */
  agentSocket?: string;
  /** Channels per login before another login opens. Default 8. */
  channelsPerLogin?: number;
  /** A login with no channel open is closed after this long (so a CLI run can exit). Default 300 ms. */
  idleMs?: number;
  /** Default 15000. */
  connectTimeoutMs?: number;
};

export type SshEngineTransport = {
  /** user@host[:port] */
  target: string;
  /** The http.Agent dockerode sends requests through (channels kept alive). */
  agent: Agent;
  /** One channel per request, for requests that must not be sent twice. */
  freshAgent: Agent;
  /** SSH logins open now (status and the bench). */
  logins(): number;
  close(): Promise<void>;
};

const FREE_CHANNEL_MS = 500;

/**
 * http's client and agent call a few net.Socket methods on what the agent hands them: ref/unref and
 * keep-alive probes mean nothing on a channel (the login's keepalives watch the connection), and
 * setTimeout(ms) is how the agent retires a free socket: a plain timer emitting "timeout".
 */
function socketLike(channel: Duplex): void {
  const socket = channel as unknown as Record<string, unknown>;
  let timer: NodeJS.Timeout | undefined;
  let listener: (() => void) | undefined;
  socket.setTimeout = (ms: number, callback?: () => void) => {
    clearTimeout(timer);
    timer = undefined;
    if (callback) {
      if (listener) channel.removeListener("timeout", listener);
      listener = callback;
      channel.once("timeout", callback);
    }
    if (ms > 0) {
      timer = setTimeout(() => channel.emit("timeout"), ms);
      timer.unref();
    }
    return channel;
  };
  channel.once("close", () => clearTimeout(timer));
  for (const name of ["setNoDelay", "setKeepAlive", "ref", "unref"]) socket[name] ??= () => channel;
}

/** An http.Agent whose sockets are SSH channels: it asks for one per connection it needs. */
function channelAgent(dial: () => Promise<Duplex>, keepAlive: boolean): Agent {
  const agent = new Agent({ keepAlive, ...(keepAlive ? { timeout: FREE_CHANNEL_MS } : {}) });
  (agent as unknown as { createConnection: unknown }).createConnection = (
    _options: unknown,
    callback: (error: Error | null, socket?: Duplex) => void,
  ) => {
    dial().then(
      (socket) => callback(null, socket),
      (error: Error) => callback(error),
    );
    return undefined;
  };
  return agent;
}

type Login = { connection: SshConnection; channels: number; idle?: NodeJS.Timeout };

export async function createSshEngineTransport(
  spec: SshEngineHost,
  options: SshEngineOptions = {},
): Promise<SshEngineTransport> {
  const home = options.home ?? homedir();
  const resolved: ResolvedHost = await resolveHost(spec, {
    home,
    ...(options.agentSocket !== undefined ? { agentSocket: options.agentSocket } : {}),
  });
  const identities = await loadIdentities(resolved.identityFiles);
  const target = describeTarget(resolved);
  const address = options.address ?? `ssh://${target}`;
  // Nobody can be asked on an engine connection and --trust-remote-host is the workspaces' flag: known_hosts only.
  const trust = createHostTrust({ knownHosts: createKnownHostsFile(join(home, ".ssh", "known_hosts")), otherWays: "" });
  const perLogin = options.channelsPerLogin ?? 8;
  const idleMs = options.idleMs ?? 300;
  const logins = new Set<Login>();

  const newLogin = (): Login => {
    const login: Login = {
      channels: 0,
      connection: createSshConnection({
        endpoint: resolved,
        auth: { ...(resolved.agentSocket ? { agentSocket: resolved.agentSocket } : {}), identities },
        verifyHostKey: async (key) => {
          const verdict = await trust.verify(key);
          return "unknown" in verdict
            ? { refused: `${verdict.unknown} (the container engine at ssh://${target})` }
            : verdict;
        },
        maxChannels: perLogin,
        ...(options.connectTimeoutMs !== undefined ? { connectTimeoutMs: options.connectTimeoutMs } : {}),
      }),
    };
    logins.add(login);
    // A dropped login is forgotten; the next request opens another.
    void login.connection.whenDropped().then(() => {
      logins.delete(login);
      clearTimeout(login.idle);
    });
    return login;
  };

  const pick = (): Login => {
    let best: Login | undefined;
    for (const login of logins)
      if (login.channels < perLogin && (!best || login.channels > best.channels)) best = login;
    return best ?? newLogin();
  };

  async function dial(): Promise<Duplex> {
    const login = pick();
    login.channels++;
    clearTimeout(login.idle);
    const release = () => {
      login.channels--;
      if (login.channels > 0) return;
      login.idle = setTimeout(() => {
        if (login.channels > 0) return;
        logins.delete(login);
        void login.connection.close();
      }, idleMs);
      login.idle.unref();
    };
    try {
      const channel = await login.connection.exec("docker system dial-stdio");
      channel.once("close", release);
      // The far side's complaints (no docker CLI there, no engine behind it) end the HTTP exchange
      // early ("socket hang up"); kept for the error message that then names the engine.
      let stderr = "";
      channel.stderr.on("data", (chunk: Buffer) => {
        if (stderr.length < 2000) stderr += chunk.toString();
      });
      channel.once("exit", (code: number | null) => {
        if (code && stderr.trim()) complaints.set(address, `ssh://${target}: ${stderr.trim().split("\n")[0]}`);
      });
      socketLike(channel as unknown as Duplex);
      return channel as unknown as Duplex;
    } catch (error) {
      release();
      throw error;
    }
  }

  // Kept alive: a channel (and the far side's dial-stdio) serves request after request; a free one is
  // closed after half a second, so the logins go idle and a CLI run can exit. A request that is
  // anything but GET/HEAD goes on a channel of its own (fresh): it must never be sent twice (engine.ts).
  const agent = channelAgent(dial, true);
  const freshAgent = channelAgent(dial, false);

  return {
    target,
    agent,
    freshAgent,
    logins: () => logins.size,
    async close() {
      const all = [...logins];
      logins.clear();
      for (const login of all) clearTimeout(login.idle);
      await Promise.all(all.map((login) => login.connection.close()));
    },
  };
}
