import type Dockerode from "dockerode";

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
};

/** Where the engine is, as a user would name it. */
export function engineAddress(options: EngineOptions = {}): string {
  if (options.socketPath) return `unix://${options.socketPath}`;
  return (options.env ?? process.env).DOCKER_HOST || "unix:///var/run/docker.sock";
}

export async function loadDocker(options: EngineOptions = {}): Promise<Docker> {
  const mod = (await import("dockerode")) as unknown as { default?: typeof Dockerode } & typeof Dockerode;
  const DockerClass = (mod.default ?? mod) as typeof Dockerode;
  return options.socketPath ? new DockerClass({ socketPath: options.socketPath }) : new DockerClass();
}

/** An engine that cannot be reached, said so that the user knows what to start or set. */
export class EngineUnavailableError extends Error {
  override name = "EngineUnavailableError";
}

export function engineError(address: string, error: unknown): EngineUnavailableError {
  const e = error as { code?: string; message?: string };
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
    const components = (version as { Components?: Array<{ Name: string; Version: string }> }).Components ?? [];
    const named = components.find((c) => /engine/i.test(c.Name))?.Name;
    // Docker calls its component "Engine", Podman "Podman Engine".
    const product = !named || named === "Engine" ? "Docker Engine" : named;
    return {
      address,
      ok: true,
      name: `${product} ${version.Version} (API ${version.ApiVersion})`,
      pingMs,
      ...(typeof info.Driver === "string" ? { storage: info.Driver } : {}),
      ...(info.CgroupVersion ? { cgroup: `cgroup v${String(info.CgroupVersion)}` } : {}),
    };
  } catch (error) {
    return { address, ok: false, error: engineError(address, error).message };
  }
}

/** One line for /status and doctor. */
export function describeEngine(health: EngineHealth): string {
  if (!health.ok) return health.error ?? `${health.address}: unreachable`;
  const details = [`answers in ${health.pingMs} ms`, health.storage && `storage ${health.storage}`, health.cgroup];
  return `${health.name} at ${health.address} — ${details.filter(Boolean).join(", ")}`;
}
