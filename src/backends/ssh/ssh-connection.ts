import { createHash } from "node:crypto";
import type { Client, ClientChannel, ConnectConfig, SFTPWrapper } from "ssh2";

// One SSH connection per host, shared by every operation of a workspace: file operations reuse one
// SFTP session, each command gets its own exec channel. The connection is opened on first use and
// again after a drop; a failed attempt makes the next one wait (backoff) so a dead host is not
// hammered, but no call ever waits longer than the connect timeout plus that backoff. ssh2 is
// loaded lazily (dynamic import) so sessions that never go remote do not pay for it.

export type SshEndpoint = {
  host: string;
  port: number;
  username: string;
  /** Reach this host through another one (ProxyJump): a direct-tcpip channel from the jump host. */
  jump?: SshEndpoint;
};

export type SshIdentity = { path: string; key: string | Buffer };

export type SshAuth = {
  /** ssh-agent socket (SSH_AUTH_SOCK); tried first. Nothing is forwarded to the remote. */
  agentSocket?: string;
  /** Private keys, tried in order after the agent. */
  identities: SshIdentity[];
};

export type HostKey = { host: string; port: number; type: string; blob: Buffer; fingerprint: string };

/**
 * What known_hosts says about a key: trusted; refused (changed or revoked: never asked); or unknown,
 * which may be confirmed by a human (asked with no connection held open, so no handshake timeout
 * runs while the dialog is up; the connection is then made again).
 */
export type HostKeyVerdict = { trusted: true } | { refused: string } | { unknown: string };

class UnknownHostKeyError extends Error {
  constructor(
    message: string,
    readonly key: HostKey,
  ) {
    super(message);
  }
}

export type Ssh2Module = { Client: new () => Client };

export type SshConnectionOptions = {
  endpoint: SshEndpoint;
  auth: SshAuth;
  verifyHostKey(key: HostKey): Promise<HostKeyVerdict>;
  /** Asks about an unknown key; true = connect. Absent: unknown keys are refused. */
  confirmHostKey?(key: HostKey): Promise<boolean>;
  /** Default 15000. */
  connectTimeoutMs?: number;
  /** Default 15000: keepalives notice a silently dead peer. */
  keepaliveMs?: number;
  /** Default 8: OpenSSH allows 10 sessions per connection (MaxSessions); the rest wait. */
  maxChannels?: number;
  /** Default: import("ssh2"). */
  loadSsh2?: () => Promise<Ssh2Module>;
};

export class SshConnectionError extends Error {
  override name = "SshConnectionError";
}

export type SshConnectionStatus = {
  target: string;
  connected: boolean;
  /** How long the last successful connect took (TCP + key exchange + auth). */
  lastConnectMs?: number;
  lastError?: string;
  reconnects: number;
  /** Channels opened so far (exec and SFTP); file operations share one SFTP channel. */
  channelsOpened: number;
};

export interface SshConnection {
  readonly target: string;
  /** Opens an exec channel (no pty, so stdout and stderr stay apart). */
  exec(command: string): Promise<ClientChannel>;
  /** The shared SFTP session (opened once per connection). */
  sftp(): Promise<SFTPWrapper>;
  /** Resolves when the current connection drops (used to fail running calls at once); never rejects. */
  whenDropped(): Promise<string>;
  /** Connects now if not connected (for doctor / status). */
  connect(): Promise<void>;
  status(): SshConnectionStatus;
  close(): Promise<void>;
}

export function describeTarget(endpoint: SshEndpoint): string {
  return `${endpoint.username}@${endpoint.host}${endpoint.port === 22 ? "" : `:${endpoint.port}`}`;
}

export function hostKeyFromBlob(host: string, port: number, blob: Buffer): HostKey {
  const length = blob.length >= 4 ? blob.readUInt32BE(0) : 0;
  const type = blob.subarray(4, 4 + length).toString("latin1");
  const fingerprint = `SHA256:${createHash("sha256").update(blob).digest("base64").replace(/=+$/, "")}`;
  return { host, port, type, blob, fingerprint };
}

const loadDefault = async (): Promise<Ssh2Module> => {
  const mod = (await import("ssh2")) as unknown as Ssh2Module & { default?: Ssh2Module };
  return mod.Client ? mod : mod.default!;
};

type Live = { client: Client; sftp?: Promise<SFTPWrapper>; dropped: Promise<string> };

export function createSshConnection(options: SshConnectionOptions): SshConnection {
  const target = describeTarget(options.endpoint);
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  const keepaliveMs = options.keepaliveMs ?? 15_000;
  const loadSsh2 = options.loadSsh2 ?? loadDefault;
  const maxChannels = options.maxChannels ?? 8;
  let live: Promise<Live> | undefined;
  let closed = false;
  let failures = 0;
  let lastFailureAt = 0;
  let everConnected = false;
  const status: SshConnectionStatus = { target, connected: false, reconnects: 0, channelsOpened: 0 };
  let openChannels = 0;
  /** Unknown keys a human allowed for this connection's lifetime ("allow once"). */
  const confirmed = new Set<string>();
  const confirmedId = (key: HostKey) => `${key.host}:${key.port} ${key.fingerprint}`;
  const waiting: Array<() => void> = [];

  async function acquireChannel(): Promise<() => void> {
    while (openChannels >= maxChannels) await new Promise<void>((r) => waiting.push(r));
    openChannels++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      openChannels--;
      waiting.shift()?.();
    };
  }

  /** Connects `endpoint`, through its jump host when it has one. Clients opened are added to `chain`. */
  async function connectEndpoint(Ssh: Ssh2Module, endpoint: SshEndpoint, chain: Client[]): Promise<Client> {
    let sock: ConnectConfig["sock"];
    if (endpoint.jump) {
      const jump = await connectEndpoint(Ssh, endpoint.jump, chain);
      sock = await new Promise((resolve, reject) =>
        jump.forwardOut("127.0.0.1", 0, endpoint.host, endpoint.port, (error, stream) =>
          error
            ? reject(
                new SshConnectionError(
                  `jump host ${describeTarget(endpoint.jump!)} could not reach ${endpoint.host}:${endpoint.port}: ${error.message}`,
                ),
              )
            : resolve(stream),
        ),
      );
    }
    const client = new Ssh.Client();
    chain.push(client);
    // ssh2 may report more than one error for a failing connection; an unheard one would crash the process.
    client.on("error", () => {});
    // ssh2's typings know only a subset of the array form it accepts (agent and key objects).
    const auth: Array<Record<string, unknown>> = [];
    if (options.auth.agentSocket)
      auth.push({ type: "agent", username: endpoint.username, agent: options.auth.agentSocket });
    for (const identity of options.auth.identities)
      auth.push({ type: "publickey", username: endpoint.username, key: identity.key });
    return new Promise<Client>((resolve, reject) => {
      let refusal: Error | undefined;
      client.once("ready", () => {
        // Every file operation is a few small request/reply round trips over SFTP: with Nagle's
        // algorithm on, each can wait for a delayed ACK (~40 ms), so one read_file took 220 ms.
        client.setNoDelay(true);
        resolve(client);
      });
      client.once("error", (error: Error & { level?: string }) => {
        const where = describeTarget(endpoint);
        if (refusal) reject(refusal);
        else if (error.level === "client-authentication") {
          const tried = [
            options.auth.agentSocket ? "ssh-agent" : "",
            ...options.auth.identities.map((i) => i.path),
          ].filter(Boolean);
          reject(
            new SshConnectionError(
              `authentication to ${where} failed (tried: ${tried.join(", ") || "no keys: no ssh-agent and no identity file"})`,
            ),
          );
        } else reject(new SshConnectionError(`cannot connect to ${where}: ${error.message}`));
      });
      client.once("close", () =>
        reject(refusal ?? new SshConnectionError(`connection to ${describeTarget(endpoint)} closed during setup`)),
      );
      client.connect({
        host: endpoint.host,
        port: endpoint.port,
        username: endpoint.username,
        ...(sock ? { sock } : {}),
        authHandler: auth as unknown as ConnectConfig["authHandler"],
        agentForward: false,
        readyTimeout: connectTimeoutMs,
        keepaliveInterval: keepaliveMs,
        keepaliveCountMax: 3,
        hostVerifier: (blob: Buffer, verify: (ok: boolean) => void) => {
          const key = hostKeyFromBlob(endpoint.host, endpoint.port, blob);
          options.verifyHostKey(key).then(
            (verdict) => {
              if ("trusted" in verdict || confirmed.has(confirmedId(key))) return verify(true);
              if ("refused" in verdict) refusal = new SshConnectionError(verdict.refused);
              else refusal = new UnknownHostKeyError(verdict.unknown, key);
              verify(false);
            },
            (error: unknown) => {
              refusal = new SshConnectionError(
                `host key check for ${describeTarget(endpoint)} failed: ${(error as Error).message}`,
              );
              verify(false);
            },
          );
        },
      } as ConnectConfig);
    });
  }

  async function open(): Promise<Live> {
    if (failures > 0) {
      const backoff = Math.min(250 * 2 ** (failures - 1), 5000) - (Date.now() - lastFailureAt);
      if (backoff > 0) await new Promise((r) => setTimeout(r, backoff));
    }
    const started = Date.now();
    const Ssh = await loadSsh2();
    let chain: Client[] = [];
    let client: Client;
    // Each unknown key on the way (jump hosts, then the target) is asked about once.
    for (let attempt = 0; ; attempt++) {
      try {
        client = await connectEndpoint(Ssh, options.endpoint, chain);
        break;
      } catch (error) {
        for (const c of chain) c.end();
        chain = [];
        if (!(error instanceof UnknownHostKeyError)) throw error;
        if (attempt >= 4 || !options.confirmHostKey || !(await options.confirmHostKey(error.key)))
          throw new SshConnectionError(error.message);
        confirmed.add(confirmedId(error.key));
      }
    }
    if (closed) {
      for (const c of chain) c.end();
      throw new SshConnectionError(`connection to ${target} was closed`);
    }
    status.lastConnectMs = Date.now() - started;
    status.connected = true;
    if (everConnected) status.reconnects++;
    everConnected = true;
    failures = 0;
    const dropped = new Promise<string>((resolve) => {
      let reason = `connection to ${target} lost`;
      client.on("error", (error: Error) => {
        reason = `connection to ${target} lost: ${error.message}`;
      });
      client.once("close", () => {
        status.connected = false;
        status.lastError = reason;
        live = undefined;
        for (const c of chain) c.end();
        resolve(reason);
      });
    });
    return { client, dropped };
  }

  function current(): Promise<Live> {
    if (closed) return Promise.reject(new SshConnectionError(`connection to ${target} is closed`));
    live ??= open().catch((error: unknown) => {
      live = undefined;
      failures++;
      lastFailureAt = Date.now();
      status.lastError = (error as Error).message;
      throw error instanceof SshConnectionError
        ? error
        : new SshConnectionError(`cannot connect to ${target}: ${(error as Error).message}`);
    });
    return live;
  }

  return {
    target,
    async exec(command) {
      const release = await acquireChannel();
      try {
        const { client } = await current();
        status.channelsOpened++;
        const channel = await new Promise<ClientChannel>((resolve, reject) =>
          client.exec(command, (error, stream) =>
            error ? reject(new SshConnectionError(`${target}: ${error.message}`)) : resolve(stream),
          ),
        );
        channel.once("close", release);
        return channel;
      } catch (error) {
        release();
        throw error;
      }
    },
    async sftp() {
      const state = await current();
      if (!state.sftp) status.channelsOpened++;
      state.sftp ??= new Promise<SFTPWrapper>((resolve, reject) =>
        state.client.sftp((error, sftp) => {
          if (error) {
            state.sftp = undefined;
            reject(new SshConnectionError(`${target}: SFTP is not available: ${error.message}`));
            return;
          }
          sftp.once("close", () => {
            if (state.sftp) state.sftp = undefined;
          });
          resolve(sftp);
        }),
      );
      return state.sftp;
    },
    whenDropped() {
      // A connection that cannot be made counts as dropped, with the reason.
      return current().then(
        (state) => state.dropped,
        (error: unknown) => (error as Error).message,
      );
    },
    async connect() {
      await current();
    },
    status: () => ({ ...status }),
    async close() {
      closed = true;
      const pending = live;
      live = undefined;
      if (!pending) return;
      try {
        const { client, dropped } = await pending;
        client.end();
        // Unref'd: a pending wait must not hold a process that is otherwise done.
        await Promise.race([dropped, new Promise((r) => setTimeout(r, 2000).unref())]);
      } catch {
        // never connected
      }
    },
  };
}
