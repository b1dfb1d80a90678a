import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import type { Agent } from "node:http";
import type Dockerode from "dockerode";
import {
  createSshEngineTransport,
  farSideComplaint,
  parseSshEngineHost,
  type SshEngineTransport,
} from "./engine-ssh.js";

// The Docker Engine API through dockerode (docker-modem underneath: DOCKER_HOST as unix://, tcp:// or
// ssh://, TLS from DOCKER_TLS_VERIFY/DOCKER_CERT_PATH; Podman's compatible socket works the same way).
// dockerode pulls in gRPC for BuildKit sessions (~190 ms to load), so it is imported only when a
// session uses a container workspace, or doctor and `deep-acp workspaces` ask for it.

export type Docker = Dockerode;

export type EngineOptions = {
  /** unix socket path (tests); default: DOCKER_HOST, else the platform's default socket. */
  socketPath?: string;
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
  /** Whose ~/.ssh reaches an ssh:// engine (config, keys, known_hosts). Default os.homedir(). */
  home?: string;
};

/**
 * The engine's socket when DOCKER_HOST is not set: Docker's (system-wide, then Docker Desktop's per
 * user), else Podman's (rootless under XDG_RUNTIME_DIR, then rootful), the first that exists.
 */
export function defaultEngineSocket(
  env: NodeJS.ProcessEnv = process.env,
  exists: (path: string) => boolean = existsSync,
): string {
  const candidates = [
    "/var/run/docker.sock",
    join(env.HOME || homedir(), ".docker", "run", "docker.sock"),
    ...(env.XDG_RUNTIME_DIR ? [join(env.XDG_RUNTIME_DIR, "podman", "podman.sock")] : []),
    "/run/podman/podman.sock",
  ];
  return candidates.find((path) => exists(path)) ?? candidates[0]!;
}

/** Where the engine is, as a user would name it. */
export function engineAddress(options: EngineOptions = {}): string {
  if (options.socketPath) return `unix://${options.socketPath}`;
  const env = options.env ?? process.env;
  return env.DOCKER_HOST || `unix://${defaultEngineSocket(env)}`;
}

/**
 * Whether the engine runs on another machine, so that paths of this one mean nothing to it (bind
 * mounts cannot work). ssh:// always; tcp:// unless it names this machine; sockets are local.
 */
export function isRemoteEngine(address: string): boolean {
  if (/^ssh:\/\//i.test(address)) return true;
  if (/^(unix|npipe):\/\//i.test(address)) return false;
  const host = /^[a-z]+:\/\/\[?([^\]/:]+)/i.exec(address)?.[1] ?? "";
  return !["localhost", "127.0.0.1", "::1"].includes(host.toLowerCase());
}

/** One SSH transport per engine address and HOME in this process: sessions share its logins. */
const sshTransports = new Map<string, Promise<SshEngineTransport>>();

export async function loadDocker(options: EngineOptions = {}): Promise<Docker> {
  const mod = (await import("dockerode")) as unknown as { default?: typeof Dockerode } & typeof Dockerode;
  const DockerClass = (mod.default ?? mod) as typeof Dockerode;
  if (options.socketPath) return new DockerClass({ socketPath: options.socketPath });
  const address = engineAddress(options);
  if (/^ssh:\/\//i.test(address)) {
    const spec = parseSshEngineHost(address);
    const key = `${address} ${options.home ?? ""}`;
    let transport = sshTransports.get(key);
    if (!transport) {
      transport = createSshEngineTransport(spec, {
        address,
        ...(options.home ? { home: options.home } : {}),
        ...(options.env?.SSH_AUTH_SOCK ? { agentSocket: options.env.SSH_AUTH_SOCK } : {}),
      });
      sshTransports.set(key, transport);
      transport.catch(() => sshTransports.delete(key));
    }
    const { agent, freshAgent } = await transport;
    // Plain HTTP over the SSH channels; the host name only fills the Host header.
    const docker = new DockerClass({ protocol: "http", host: spec.host, port: 2375, agent } as Dockerode.DockerOptions);
    replayHungUpRequests(docker, freshAgent);
    return docker;
  }
  // A socket (DOCKER_HOST=unix://, or the default one found above) directly; docker-modem reads tcp://
  // DOCKER_HOST and its TLS settings itself.
  return /^unix:\/\//i.test(address) ? new DockerClass({ socketPath: address.slice(7) }) : new DockerClass();
}

type ModemDial = (options: Record<string, unknown>, callback: (error: unknown, result?: unknown) => void) => void;

/**
 * A kept-alive channel can be closed by the far side just as the next request goes out on it (the
 * race every HTTP keep-alive client has): the request then fails with "socket hang up". Only a
 * request that can be sent twice (GET, HEAD: the engine may have read it) is sent once more; any
 * other (a container made, a command started, an archive put) goes on a channel of its own, which
 * that race cannot close under it, so nothing is ever done twice.
 */
export function replayHungUpRequests(docker: Docker, freshAgent: Agent): void {
  const modem = docker.modem as unknown as { dial: ModemDial; agent: Agent };
  const dial = modem.dial.bind(modem);
  const keptAlive = modem.agent;
  modem.dial = (options, callback) => {
    const replayable = /^(GET|HEAD)$/i.test(String(options.method ?? "GET"));
    // The modem picks its agent while it builds the request, synchronously inside dial().
    if (!replayable) modem.agent = freshAgent;
    try {
      dial(options, (error, result) => {
        if (replayable && (error as { code?: string } | undefined)?.code === "ECONNRESET") dial(options, callback);
        else callback(error, result);
      });
    } finally {
      modem.agent = keptAlive;
    }
  };
}

/** The SSH logins open to ssh:// engines (the bench reads it). */
export async function sshEngineLogins(): Promise<number> {
  let total = 0;
  for (const transport of sshTransports.values()) total += await transport.then((t) => t.logins()).catch(() => 0);
  return total;
}

/** An engine that cannot be reached, said so that the user knows what to start or set. */
export class EngineUnavailableError extends Error {
  override name = "EngineUnavailableError";
}

export function engineError(address: string, error: unknown): EngineUnavailableError {
  const e = error as { code?: string; message?: string; name?: string };
  // The SSH login's own words (a refused host key, failed authentication) already say what to do.
  if (e.name === "SshConnectionError")
    return new EngineUnavailableError(`the container engine at ${address} cannot be reached: ${e.message}`);
  const complaint = e.code === "ECONNRESET" ? farSideComplaint(address) : undefined;
  if (complaint) return new EngineUnavailableError(`the container engine at ${address} does not answer: ${complaint}`);
  const why = e.code === "ENOENT" || e.code === "ECONNREFUSED" ? "nothing listens there" : (e.message ?? String(error));
  return new EngineUnavailableError(
    `no container engine answers at ${address} (${why}); start Docker (or Podman's socket) or set DOCKER_HOST`,
  );
}

/** Whether the engine has `image` (deep-acp pulls nothing). */
export async function imageOnEngine(docker: Docker, image: string): Promise<boolean> {
  return docker
    .getImage(image)
    .inspect()
    .then(
      () => true,
      () => false,
    );
}

export type EngineHealth = {
  address: string;
  /** "local socket", "remote, over SSH", "remote over TCP", "local TCP". */
  where: string;
  ok: boolean;
  /** "Docker Engine 20.10.24 (API 1.41)" or "Podman Engine 5.0.0 (API 1.41)". */
  name?: string;
  pingMs?: number;
  storage?: string;
  cgroup?: string;
  error?: string;
};

export async function engineHealth(docker: Docker, address: string): Promise<EngineHealth> {
  const started = performance.now();
  try {
    await docker.ping();
    const pingMs = Math.round((performance.now() - started) * 10) / 10;
    const [version, info] = await Promise.all([docker.version(), docker.info() as Promise<Record<string, unknown>>]);
    return {
      address,
      where: engineWhere(address),
      ok: true,
      name: `${engineProduct(version)} ${version.Version} (API ${version.ApiVersion})`,
      pingMs,
      ...(typeof info.Driver === "string" ? { storage: info.Driver } : {}),
      ...(info.CgroupVersion ? { cgroup: `cgroup v${String(info.CgroupVersion)}` } : {}),
    };
  } catch (error) {
    return { address, where: engineWhere(address), ok: false, error: engineError(address, error).message };
  }
}

/** Which engine answers, from GET /version: Docker calls its component "Engine", Podman "Podman Engine". */
export function engineProduct(version: {
  Components?: Array<{ Name: string }>;
}): "Docker Engine" | "Podman Engine" | string {
  const named = (version.Components ?? []).find((c) => /engine/i.test(c.Name))?.Name;
  return !named || named === "Engine" ? "Docker Engine" : named;
}

export function engineWhere(address: string): string {
  if (/^ssh:\/\//i.test(address)) return "remote, over SSH";
  if (/^(unix|npipe):\/\//i.test(address)) return "local socket";
  return isRemoteEngine(address) ? "remote over TCP" : "local TCP";
}

/** One line for /status and doctor. */
export function describeEngine(health: EngineHealth): string {
  if (!health.ok) return health.error ?? `${health.address}: unreachable`;
  const details = [`answers in ${health.pingMs} ms`, health.storage && `storage ${health.storage}`, health.cgroup];
  return `${health.name} at ${health.address} (${health.where}) — ${details.filter(Boolean).join(", ")}`;
}
