import {
  checkBwrapAvailable,
  createBwrapSandboxBackend,
  type HostSurfaceSource,
} from "../../backends/sandbox/bwrap-sandbox.js";
import { createCompositeBackend } from "../../backends/routes/composite-backend.js";
import { createEditorBackend } from "../../backends/editor/editor-backend.js";
import type { EditorBridge } from "../../backends/editor/editor-bridge.js";
import { createLocalShellBackend } from "../../backends/local/local-shell.js";
import type { BackendProtocol, SandboxBackendProtocol } from "../../backends/protocol.js";
import { buildRouteBackends } from "../../backends/routes/route-config.js";
import { createStateBackend, type StateBackend, type StateSnapshot } from "../../backends/state/state-backend.js";
import { createStoreBackend } from "../../backends/state/store-backend.js";
import type { SshBackend } from "../../backends/ssh/ssh-backend.js";
import type { HostKey } from "../../backends/ssh/ssh-connection.js";
import type { HostKeyAnswer } from "../../backends/ssh/ssh-host-trust.js";
import { openSshWorkspace } from "../../backends/ssh/ssh-workspace.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import { posix } from "node:path";
import type { UserPaths } from "../../config/paths.js";
import { compileFileRules, type CompiledFileRules } from "../../gate/rules/file-rules.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import type { Logger } from "../../util/logger.js";
import { createGuardedBackend } from "../../gate/rules/guarded-backend.js";
import { createHostSurfaceCache, type HostSurfaceCache } from "../../gate/surfaces/host-surface-cache.js";
import type { HostExecutionSurfaces } from "../../gate/surfaces/host-surfaces.js";
import { createProtectedPaths, type ProtectedPaths } from "../../gate/surfaces/protected-paths.js";
import { selectWorkspace } from "./remote-workspace.js";
import type { RealPathFs } from "../../backends/paths/real-path.js";
import type { ContainerWorkspace } from "../../backends/container/container-workspace.js";
import type { PlanAnswer } from "../../backends/container/devcontainer/devcontainer-consent.js";
import type { DevContainerPlan } from "../../backends/container/devcontainer/devcontainer-plan.js";
import { hostExecutionPaths } from "./host-execution-paths.js";
import { bindModeHold } from "./bind-held.js";
import { containerSurfaceCache } from "./container-surfaces.js";
import type { SessionFlags } from "../services.js";
import { holdsHome, homeRootMessage } from "../../util/home-root.js";
import { isWithin, relativeWithin } from "../../util/path-within.js";

/** Where a session's file tools and commands go. */
export type Workspace = {
  /** Every file operation: routes for the agent's own storage over the user's files, under the file rules. */
  backend: BackendProtocol;
  /** Absent when the session cannot run commands (a sandbox was asked for but is unavailable). */
  executor?: SandboxBackendProtocol;
  /** The agent's own shell (local or bubblewrap, never an editor terminal): background processes run here. */
  shell?: SandboxBackendProtocol;
  /** Route prefixes of the agent's own storage (/memories/, /large_tool_results/, ...). */
  virtualPrefixes: string[];
  /** Session-scoped stores by route prefix; their files are saved with the session. */
  stateBackends: Map<string, StateBackend>;
  rules: CompiledFileRules;
  /** What the gate always asks about; the bubblewrap sandbox keeps the same paths read-only. */
  protectedPaths: ProtectedPaths;
  /** What decides what runs on the host, as git and the protected list resolve it (local workspaces). */
  surfaces?: HostSurfaceCache;
  /** Commands run inside bubblewrap. */
  sandboxed: boolean;
  /** The working directory and roots the tools and the model see (remote paths for a remote workspace). */
  cwd: string;
  roots: readonly string[];
  /** Set when files and commands live on another machine. */
  remote?: { url: string; source: string; backend: SshBackend };
  /** Set when files and commands live in a container. */
  container?: { url: string; source: string; workspace: ContainerWorkspace };
  /** Where the gate follows links when the files are not on this machine's disk (remote, container). */
  realPathFs?: RealPathFs;
  diagnostics: Diagnostic[];
  dispose(): Promise<void>;
};

export type WorkspaceOptions = {
  cwd: string;
  roots: readonly string[];
  config: DeepAcpConfig;
  flags: SessionFlags;
  paths: UserPaths;
  editor?: EditorBridge;
  logger: Logger;
  /** Files of the session-scoped routes, saved with the session (by route prefix). */
  stateSnapshots?: Record<string, StateSnapshot>;
  /** The session's id (its container is labelled with it) and project root (what a container holds). */
  sessionId: string;
  projectRoot: string;
  /** The editor's dialog for an unknown SSH host key (remote workspaces); absent when nobody can answer. */
  askHostKey?: (key: HostKey, url: string) => Promise<HostKeyAnswer>;
  /** The editor's dialog for what a dev container will do; absent when nobody can answer. */
  askDevContainer?: (plan: DevContainerPlan) => Promise<PlanAnswer>;
};

/** What every step of opening a workspace reads, and the diagnostics they add to. */
type Setup = {
  options: WorkspaceOptions;
  limits: { defaultTimeoutMs: number; maxOutputChars: number };
  env: { passEnv: string[] };
  sandboxKind: string;
  protectedPaths: ProtectedPaths;
  surfaces: HostSurfaceCache;
  diagnostics: Diagnostic[];
};

/** Where commands run and, for a container or a remote, the paths the session sees there. */
type Place = {
  shell?: SandboxBackendProtocol;
  remote?: Workspace["remote"];
  container?: Workspace["container"];
  paths?: { cwd: string; roots: string[] };
};

/**
 * Files go through the editor when it offers fs (unsaved buffers, edit review), else to disk.
 * Commands run in editor terminals when offered, else in a local shell that streams output, or in
 * bubblewrap when the sandbox is on (never in an editor terminal then: those are not sandboxed).
 */
export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const { cwd, roots, config, paths } = options;
  const protectedPaths = createProtectedPaths(config.protected.paths, config.protected.extra_paths);
  const setup: Setup = {
    options,
    limits: { defaultTimeoutMs: config.shell.timeout_seconds * 1000, maxOutputChars: config.shell.capture_chars },
    // Commands get the environment minus every provider's credentials, except the ones named here.
    env: { passEnv: config.shell.pass_env },
    sandboxKind: options.flags.sandbox ?? config.sandbox.kind,
    protectedPaths,
    surfaces: createHostSurfaceCache({ protectedPaths, home: paths.home }),
    diagnostics: [],
  };
  const { diagnostics, surfaces, sandboxKind } = setup;

  const selection = selectWorkspace(cwd, roots, options.flags, config);
  const place =
    selection?.kind === "container"
      ? await openContainer(setup, selection)
      : selection?.kind === "ssh" && selection.remote
        ? await openRemote(setup, selection.remote)
        : await openLocalShell(setup);
  const { shell, remote, container } = place;
  const { files, executor } = routeThroughEditor(setup, place);

  const { stateBackends, routes } = buildStateRoutes(options);
  diagnostics.push(...routes.diagnostics);
  const composite = createCompositeBackend(files, routes.items);

  const rules = compileFileRules(config.permissions);
  diagnostics.push(...rules.diagnostics);
  for (const d of diagnostics) options.logger.warn(`${d.source}: ${d.message}`);

  return {
    backend: createGuardedBackend(composite, rules.items, { localPaths: !remote && !container }),
    executor,
    ...(shell ? { shell } : {}),
    virtualPrefixes: [...composite.routePrefixes],
    stateBackends,
    rules: rules.items,
    protectedPaths,
    // A container's paths are matched against the host's surfaces (and its copy again at /apply).
    ...(remote ? {} : container ? { surfaces: containerSurfaces(surfaces, container) } : { surfaces }),
    sandboxed: !remote && !container && sandboxKind === "bwrap" && shell !== undefined,
    cwd: place.paths?.cwd ?? cwd,
    roots: place.paths?.roots ?? roots,
    ...(remote ? { remote, realPathFs: remote.backend.realPathFs } : {}),
    ...(container ? { container, realPathFs: container.workspace.backend.realPathFs } : {}),
    diagnostics,
    async dispose() {
      // Processes belong to their tool calls and die with the turn; a remote connection is closed here,
      // and a container is let go of (it stops, and keeps its files).
      await remote?.backend.close();
      await container?.workspace.backend.close();
    },
  };
}

/** The host's answer, for the container's paths (container-surfaces.ts). */
function containerSurfaces(cache: HostSurfaceCache, container: NonNullable<Workspace["container"]>): HostSurfaceCache {
  const { hostRoot, containerRoot } = container.workspace.record;
  return containerSurfaceCache(cache, hostRoot, containerRoot);
}

type Selection = NonNullable<ReturnType<typeof selectWorkspace>>;

/** Files and commands in the container; the editor's fs/terminal and the local sandbox are never used. */
async function openContainer(
  { options, limits, diagnostics, surfaces, protectedPaths }: Setup,
  selection: Extract<Selection, { kind: "container" }>,
): Promise<Place> {
  const { cwd, roots, config, paths } = options;
  const guarded = await hostExecutionPaths(config, options.projectRoot);
  if (guarded.unknown)
    diagnostics.push({
      severity: "warning",
      source: "workspace",
      message: `which files decide what git runs on the host is unknown (${guarded.unknown}); changes to the git folder, hooks-like paths and every path git's config names are held (read-only in bind mode, each asked on its own by /apply)`,
    });
  // Loaded here, not with the session layer: only container sessions need it.
  const { openContainerWorkspace } = await import("../../backends/container/container-workspace.js");
  const opened = await openContainerWorkspace({
    spec: selection.spec,
    sessionId: options.sessionId,
    hostRoot: options.projectRoot,
    stateDir: paths.stateDir,
    home: paths.home,
    consent: {
      ...(options.askDevContainer ? { ask: options.askDevContainer } : {}),
      ...(options.flags.trustDevContainer ? { trusted: true } : {}),
    },
    limits: {
      network: config.workspace.network,
      ...(config.workspace.memory ? { memory: config.workspace.memory } : {}),
      ...(config.workspace.cpus ? { cpus: config.workspace.cpus } : {}),
    },
    readOnlyEntries: guarded.readOnlyEntries,
    ...(selection.spec.mount === "bind"
      ? { held: await bindModeHold(surfaces, protectedPaths, options.projectRoot) }
      : {}),
    ...limits,
    logger: options.logger,
  });
  const { hostRoot, containerRoot } = opened.record;
  const map = (dir: string) => {
    const rel = relativeWithin(hostRoot, dir);
    return rel === undefined ? undefined : posix.join(containerRoot, rel);
  };
  const place = { cwd: map(cwd) ?? containerRoot, roots: [map(cwd) ?? containerRoot] };
  for (const dir of roots) {
    const mapped = dir === cwd ? undefined : map(dir);
    if (mapped) place.roots.push(mapped);
    else if (dir !== cwd)
      diagnostics.push({
        severity: "warning",
        source: "workspace",
        message: `${dir} is not in the container; it is not part of this session`,
      });
  }
  for (const note of opened.notes) diagnostics.push({ severity: "warning", source: "workspace", message: note });
  return {
    container: { url: selection.url, source: selection.source, workspace: opened },
    shell: opened.backend,
    paths: place,
  };
}

/** Files and commands on the remote; the editor's fs/terminal and the local sandbox never see remote paths. */
async function openRemote(
  { options, limits, diagnostics }: Setup,
  remoteSelection: NonNullable<Extract<Selection, { kind: "ssh" }>["remote"]>,
): Promise<Place> {
  const { config, paths } = options;
  const backend = await openSshWorkspace({
    spec: remoteSelection.spec,
    home: paths.home,
    trustUnknownHost: options.flags.trustRemoteHost ?? false,
    connectTimeoutSeconds: config.remote.connect_timeout_seconds,
    ...limits,
    ...(options.askHostKey ? { askHostKey: options.askHostKey } : {}),
  });
  for (const dir of remoteSelection.unmapped)
    diagnostics.push({
      severity: "warning",
      source: "remote",
      message: `${dir} has no remote counterpart; it is not part of this remote session`,
    });
  return {
    remote: { url: remoteSelection.url, source: remoteSelection.source, backend },
    shell: backend,
    paths: remoteSelection,
  };
}

/** Commands on this machine: in bubblewrap when the sandbox is on (none if it is unavailable), else a local shell. */
async function openLocalShell({
  options,
  limits,
  env,
  sandboxKind,
  protectedPaths,
  surfaces,
  diagnostics,
}: Setup): Promise<Place> {
  const { cwd, roots, config } = options;
  if (sandboxKind !== "bwrap") return { shell: createLocalShellBackend({ rootDir: cwd, env, ...limits }) };
  // A writable HOME would leave the sandbox nothing to protect (~/.ssh, ~/.bashrc): no commands then.
  const writable = [...roots, ...config.sandbox.writable_paths];
  const holding = (await Promise.all(writable.map((dir) => holdsHome(dir, options.paths.home)))).indexOf(true);
  if (holding >= 0) {
    const message = homeRootMessage(writable[holding]!, options.paths.home, "the bubblewrap sandbox");
    diagnostics.push({ severity: "error", source: "sandbox", message: `${message} Shell commands are disabled.` });
    return {};
  }
  const availability = await checkBwrapAvailable();
  if (availability.ok)
    return {
      shell: createBwrapSandboxBackend({
        roots: [...roots],
        network: config.sandbox.network,
        readOnlyPaths: config.sandbox.read_only_paths,
        writablePaths: config.sandbox.writable_paths,
        protectedEntries: protectedPaths.entries,
        hostSurfaces: sandboxSurfaces(surfaces, roots),
        env,
        ...limits,
      }),
    };
  // Never fall back to an unsandboxed shell: the user asked for isolation.
  diagnostics.push({
    severity: "error",
    source: "sandbox",
    message: `bubblewrap sandbox unavailable: ${availability.reason}; shell commands are disabled`,
  });
  return {};
}

/** Local files through the editor when it offers fs, and commands in its terminals when offered and not sandboxed. */
function routeThroughEditor(
  { options, limits, env, sandboxKind }: Setup,
  { shell, remote, container }: Place,
): { files: BackendProtocol; executor: SandboxBackendProtocol | undefined } {
  const { cwd, roots, editor } = options;
  const local = shell ?? createLocalShellBackend({ rootDir: cwd, env, ...limits });
  let files: BackendProtocol = local;
  let executor: SandboxBackendProtocol | undefined = shell;
  if (editor && !remote && !container) {
    const viaEditor = createEditorBackend({
      bridge: editor,
      roots,
      fallback: local,
      useEditorTerminals: sandboxKind !== "bwrap",
      ...limits,
    });
    if (editor.canReadFiles || editor.canWriteFiles) files = viaEditor;
    if (shell && editor.canRunTerminals && sandboxKind !== "bwrap" && viaEditor.canExecute) {
      executor = Object.assign(viaEditor as unknown as SandboxBackendProtocol, {
        outputMode: "editor-terminal" as const,
      });
    }
  }
  return { files, executor };
}

/** The configured routes of the agent's own storage; the session-scoped ones start from the saved snapshots. */
function buildStateRoutes({ config, paths, stateSnapshots }: WorkspaceOptions) {
  const stateBackends = new Map<string, StateBackend>();
  const routes = buildRouteBackends(config.backends.routes, {
    state: (prefix) => {
      const initial = stateSnapshots?.[prefix];
      const state = createStateBackend(initial ? { initial } : {});
      stateBackends.set(prefix, state);
      return state;
    },
    // /memories/x is ~/.deepagents/<agent>/memories/x, the directory memory is loaded from.
    store: () => createStoreBackend({ dir: paths.agentDir, namespace: ["memories"] }),
  });
  return { stateBackends, routes };
}

/** Every root's host execution surfaces for a command in `cwd`: one answer for the gate and the sandbox. */
function sandboxSurfaces(cache: HostSurfaceCache, roots: readonly string[]): HostSurfaceSource {
  const flatten = (answers: ReadonlyArray<HostExecutionSurfaces | undefined>) =>
    answers.flatMap((answer) => answer?.surfaces ?? []);
  return {
    resolve: async (cwd) =>
      flatten(await Promise.all(roots.map((root) => cache.get(root, isWithin(cwd, root) ? cwd : undefined)))),
    latest: (cwd) => {
      const answers = roots.map((root) => cache.peek(root, isWithin(cwd, root) ? cwd : undefined));
      return answers.some(Boolean) ? flatten(answers) : undefined;
    },
  };
}

/** session/delete and `sessions delete`: the session's container goes too (only if one was made). */
export async function removeSessionWorkspace(paths: UserPaths, sessionId: string): Promise<void> {
  const { removeSessionContainer } = await import("../../backends/container/session-containers.js");
  await removeSessionContainer(paths.stateDir, sessionId);
}
