import { existsSync } from "node:fs";
import { join, posix } from "node:path";
import { createContainerBackend, type ContainerBackend } from "./container-backend.js";
import { createContainerLink } from "./container-link.js";
import { formatContainerUrl, type ContainerSpec } from "./container-url.js";
import type { DevContainer } from "./devcontainer/devcontainer.js";
import { consentedDevContainer, type DevContainerConsent } from "./devcontainer/devcontainer-consent.js";
import { devContainerImage } from "./devcontainer/devcontainer-image.js";
import { containerProjectRoot } from "./devcontainer/devcontainer-inputs.js";
import {
  engineAddress,
  engineError,
  imageOnEngine,
  isRemoteEngine,
  loadDocker,
  type Docker,
  type EngineOptions,
} from "./engine.js";
import { HELPER_CONTAINER } from "./helper-script.js";
import { packTree } from "./project-archive.js";
import { resolveUser } from "./container-files.js";
import { withHeldNotes, type HeldGuard } from "../paths/held-guard.js";
import { createWorkspaceStateStore, type WorkspaceRecord, type WorkspaceStateStore } from "./workspace-state.js";

// One container per session, found again by its label: created (and, in copy mode, filled with a copy
// of the project) the first time, started again by a later process (session/load after a restart
// finds the unapplied work where it was). Nothing of the host goes in but the project: no environment
// (only the dev container's containerEnv), no mounts in copy mode, no network unless asked for; a
// root that is (or holds) HOME is refused, and a dev container runs only once the user agreed to it.

export const LABELS = {
  session: "deep-acp.session",
  root: "deep-acp.root",
  url: "deep-acp.url",
  mount: "deep-acp.mount",
  folder: "deep-acp.folder",
} as const;

export type ContainerLimits = { network: "none" | "bridge"; memory?: string; cpus?: number };

export type OpenContainerOptions = {
  spec: ContainerSpec;
  sessionId: string;
  /** The host project root (a real path): copied in, or mounted in bind mode. */
  hostRoot: string;
  /** ~/.deepagents/.state */
  stateDir: string;
  /** The user's HOME: never the project of a container, nor inside it. */
  home: string;
  /** Who agrees to a dev container before it is built or started. */
  consent?: DevContainerConsent;
  limits: ContainerLimits;
  /** Bind mode: paths relative to the root kept read-only inside (the host-execution surfaces). */
  readOnlyEntries: readonly string[];
  /**
   * Bind mode: the host side's record of those surfaces (backends/paths/held-guard.ts), taken before
   * each command and the postCreateCommand and repaired after; and the folders on the way to them
   * (relative to the root), bound over themselves so a command cannot rename them.
   */
  held?: { guard: HeldGuard; anchorEntries: readonly string[] };
  engine?: EngineOptions;
  defaultTimeoutMs?: number;
  maxOutputChars?: number;
  logger?: { warn(message: string): void };
};

export type ContainerWorkspace = {
  backend: ContainerBackend;
  docker: Docker;
  address: string;
  url: string;
  record: WorkspaceRecord;
  state: WorkspaceStateStore;
  /** True when this call created the container. */
  created: boolean;
  /** Things the user should know (ignored dev container fields, a failed postCreateCommand). */
  notes: string[];
};

/** "2g", "512m", "1073741824" -> bytes. */
export function parseMemory(value: string): number {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]?)b?$/i.exec(value.trim());
  if (!match) throw new Error(`[workspace] memory must look like "2g", "512m" or a number of bytes (got "${value}")`);
  const scale = { "": 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[match[2]!.toLowerCase() as "" | "k" | "m" | "g"];
  return Math.floor(Number(match[1]) * scale);
}

export async function findSessionContainer(docker: Docker, sessionId: string) {
  const list = await docker.listContainers({ all: true, filters: { label: [`${LABELS.session}=${sessionId}`] } });
  return list[0];
}

export async function openContainerWorkspace(options: OpenContainerOptions): Promise<ContainerWorkspace> {
  const { spec, sessionId, hostRoot } = options;
  // Checked before the engine is contacted: nothing of HOME goes anywhere.
  const realRoot = await containerProjectRoot(hostRoot, options.home);
  const engine: EngineOptions = { home: options.home, ...options.engine };
  refuseRemoteBind(spec.mount, engineAddress(engine));
  const { address, docker } = await connectEngine(engine);
  const state = createWorkspaceStateStore(options.stateDir);
  const notes: string[] = [];
  const url = formatContainerUrl(spec);
  const existing = await findSessionContainer(docker, sessionId);
  const opened = existing
    ? {
        record: await existingRecord(existing, { state, sessionId, url, hostRoot, notes }),
        created: false,
        dev: undefined,
      }
    : { ...(await createSessionContainer({ docker, address, state, url, notes, options, realRoot })), created: true };
  const { record, created, dev } = opened;
  refuseRemoteBind(record.mount, address);
  const link = createContainerLink({
    docker,
    containerId: record.containerId,
    address,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const plain = createContainerBackend({
    link,
    containerId: record.containerId,
    rootDir: record.containerRoot,
    id: url,
    ...(options.defaultTimeoutMs !== undefined ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
    ...(options.maxOutputChars !== undefined ? { maxOutputChars: options.maxOutputChars } : {}),
  });
  const held = record.mount === "bind" ? options.held?.guard : undefined;
  const backend = held ? heldBackend(plain, held) : plain;
  await link.channel();
  if (dev) await runPostCreate(plain, dev, notes, held);
  return { backend, docker, address, url, record, state, created, notes };
}

/**
 * Bind mode hands the engine a path of this machine to mount; an engine on another machine would
 * mount whatever that path is over there (or nothing). Copy mode sends the project through the API.
 */
export function refuseRemoteBind(mount: "copy" | "bind", address: string): void {
  if (mount !== "bind" || !isRemoteEngine(address)) return;
  throw new Error(
    `bind mode (?mount=bind) mounts a folder of this machine, but the container engine at ${address} runs on another machine, ` +
      `where this project's path means nothing: use copy mode (the workspace URL without ?mount=bind; /changes and /apply bring the work back), or a local engine`,
  );
}

/** The engine, answering: a clear error naming its address when it does not. */
async function connectEngine(engine: EngineOptions | undefined): Promise<{ address: string; docker: Docker }> {
  const address = engineAddress(engine);
  const docker = await loadDocker(engine);
  try {
    await docker.ping();
  } catch (error) {
    throw engineError(address, error);
  }
  return { address, docker };
}

type ExistingContainer = NonNullable<Awaited<ReturnType<typeof findSessionContainer>>>;

/** The record of a container a session made earlier: the saved one, else what its labels say. */
async function existingRecord(
  existing: ExistingContainer,
  {
    state,
    sessionId,
    url,
    hostRoot,
    notes,
  }: {
    state: WorkspaceStateStore;
    sessionId: string;
    url: string;
    hostRoot: string;
    notes: string[];
  },
): Promise<WorkspaceRecord> {
  const labels = existing.Labels ?? {};
  const record = (await state.load(sessionId)) ?? {
    sessionId,
    containerId: existing.Id,
    url: labels[LABELS.url] ?? url,
    mount: labels[LABELS.mount] === "bind" ? "bind" : "copy",
    image: existing.Image,
    hostRoot: labels[LABELS.root] ?? hostRoot,
    containerRoot: labels[LABELS.folder] ?? hostRoot,
    createdAt: new Date(existing.Created * 1000).toISOString(),
  };
  if (record.url !== url) notes.push(`this session's container was made from ${record.url}; it is used as it is`);
  if (record.mount === "copy" && !record.baseline)
    notes.push("the record of what was copied into this container is missing; /changes and /apply cannot work");
  return record;
}

/** Creates the session's container from its image (or dev container), fills it in copy mode, saves its record. */
async function createSessionContainer({
  docker,
  address,
  state,
  url,
  notes,
  options,
  realRoot,
}: {
  docker: Docker;
  address: string;
  state: WorkspaceStateStore;
  url: string;
  notes: string[];
  options: OpenContainerOptions;
  realRoot: string;
}): Promise<{ record: WorkspaceRecord; dev: DevContainer | undefined }> {
  const { spec, sessionId, hostRoot } = options;
  let dev: DevContainer | undefined;
  let image: string;
  if (spec.kind === "devcontainer") {
    const plan = await consentedDevContainer({ hostRoot, realRoot, mount: spec.mount }, options.consent ?? {});
    dev = plan.dev;
    if (dev.ignored.length > 0) notes.push(`${dev.file}: not honoured: ${dev.ignored.join(", ")}`);
    image = await devContainerImage(docker, plan, { network: options.limits.network });
  } else image = spec.image;
  await requireImage(docker, image, address);
  const containerRoot = dev?.workspaceFolder ?? hostRoot;
  const record: WorkspaceRecord = {
    sessionId,
    containerId: "",
    url,
    mount: spec.mount,
    image,
    hostRoot,
    containerRoot,
    createdAt: new Date().toISOString(),
  };
  const container = await docker.createContainer({
    ...HELPER_CONTAINER,
    Image: image,
    ...(dev?.user ? { User: dev.user } : {}),
    Env: Object.entries(dev?.containerEnv ?? {}).map(([k, v]) => `${k}=${v}`),
    WorkingDir: containerRoot,
    Labels: {
      [LABELS.session]: sessionId,
      [LABELS.root]: hostRoot,
      [LABELS.url]: url,
      [LABELS.mount]: spec.mount,
      [LABELS.folder]: containerRoot,
    },
    HostConfig: hostConfig(options, containerRoot),
  });
  record.containerId = container.id;
  try {
    if (spec.mount === "copy") {
      const owner = await resolveUser(container, dev?.user);
      const { stream, done } = await packTree(hostRoot, { prefix: containerRoot, ...owner });
      await container.putArchive(stream as unknown as NodeJS.ReadableStream, { path: "/" });
      record.baseline = await done;
    }
    await state.save(record);
  } catch (error) {
    await container.remove({ force: true }).catch(() => undefined);
    throw error;
  }
  return { record, dev };
}

/** deep-acp pulls nothing: the image must already be on the engine. */
async function requireImage(docker: Docker, image: string, address: string): Promise<void> {
  const present = await imageOnEngine(docker, image);
  if (!present)
    throw new Error(
      `image ${image} is not on the engine at ${address} (deep-acp pulls nothing): run docker pull ${image}`,
    );
}

/** The network, memory and CPU limits, and in bind mode the project (its host-execution surfaces read-only). */
function hostConfig(options: OpenContainerOptions, containerRoot: string) {
  const { spec, hostRoot, limits } = options;
  const binds =
    spec.mount === "bind"
      ? [
          `${hostRoot}:${containerRoot}`,
          ...(options.held?.anchorEntries ?? [])
            .filter((entry) => existsSync(join(hostRoot, entry)))
            .map((entry) => `${join(hostRoot, entry)}:${posix.join(containerRoot, entry)}`),
          ...options.readOnlyEntries
            .filter((entry) => existsSync(join(hostRoot, entry)))
            .map((entry) => `${join(hostRoot, entry)}:${posix.join(containerRoot, entry)}:ro`),
        ]
      : [];
  return {
    NetworkMode: limits.network,
    ...(limits.memory ? { Memory: parseMemory(limits.memory) } : {}),
    ...(limits.cpus ? { NanoCpus: Math.round(limits.cpus * 1e9) } : {}),
    ...(binds.length > 0 ? { Binds: binds } : {}),
  };
}

/** Each command held (bind mode): what it changed of the host's surfaces is put back and said in its output. */
function heldBackend(backend: ContainerBackend, guard: HeldGuard): ContainerBackend {
  return {
    ...backend,
    execute: async (command, exec) => {
      const { result, notes } = await guard.around(() => backend.execute(command, exec));
      return withHeldNotes(result, notes);
    },
  };
}

/**
 * A new dev container's postCreateCommand lines; a failing one becomes a note, not an error. In bind
 * mode each is held like a command, before the session is handed to the user: a repair is a note.
 */
async function runPostCreate(
  backend: ContainerBackend,
  dev: DevContainer,
  notes: string[],
  held: HeldGuard | undefined,
): Promise<void> {
  for (const line of dev.postCreate) {
    const run = () => backend.execute(line, { timeoutMs: 600_000 });
    const { result, notes: repaired } = held ? await held.around(run) : { result: await run(), notes: [] };
    for (const note of repaired) notes.push(`postCreateCommand \`${line}\`: ${note}`);
    if (result.exitCode !== 0)
      notes.push(
        `postCreateCommand \`${line}\` failed (exit ${result.exitCode ?? result.signal}): ${result.output.slice(-500)}`,
      );
  }
}
