import { createCompositeBackend } from "../../backends/routes/composite-backend.js";
import { createEditorBackend } from "../../backends/editor/editor-backend.js";
import type { BackendProtocol, SandboxBackendProtocol } from "../../backends/protocol.js";
import { buildRouteBackends } from "../../backends/routes/route-config.js";
import { createStateBackend, type StateBackend } from "../../backends/state/state-backend.js";
import { createStoreBackend } from "../../backends/state/store-backend.js";
import type { UserPaths } from "../../config/paths.js";
import { compileFileRules, type CompiledFileRules } from "../../gate/rules/file-rules.js";
import type { Diagnostic } from "../../util/diagnostics.js";
import { createGuardedBackend } from "../../gate/rules/guarded-backend.js";
import { createHostSurfaceCache, type HostSurfaceCache } from "../../gate/surfaces/host-surface-cache.js";
import { createProtectedPaths, type ProtectedPaths } from "../../gate/surfaces/protected-paths.js";
import type { RealPathFs } from "../../backends/paths/real-path.js";
import type { Place, PlaceSetup, WorkspaceOptions } from "./place.js";
import { placeKinds, targetHere } from "./place-kinds.js";
import { selectWorkspace } from "./remote-workspace.js";

export type { WorkspaceOptions } from "./place.js";

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
  /** What decides what runs on the host, as git and the protected list resolve it, for the place's paths. */
  surfaces?: HostSurfaceCache;
  /** Commands run inside bubblewrap. */
  sandboxed: boolean;
  /** The working directory and roots the tools and the model see (the place's paths). */
  cwd: string;
  roots: readonly string[];
  /** Where the files and commands live (place.ts): status, mentions and changes are asked of it. */
  place: Place;
  /** Where the gate follows links when the files are not on this machine's disk. */
  realPathFs?: RealPathFs;
  diagnostics: Diagnostic[];
  dispose(): Promise<void>;
};

/**
 * The place the session's URL names (place-kinds.ts), or this machine's for the sandbox setting;
 * files go through the editor when the place lets it (unsaved buffers, edit review), and under the
 * agent's own routes and the file rules.
 */
export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const { cwd, roots, config, paths } = options;
  const protectedPaths = createProtectedPaths(config.protected.paths, config.protected.extra_paths);
  const setup: PlaceSetup = {
    options,
    limits: { defaultTimeoutMs: config.shell.timeout_seconds * 1000, maxOutputChars: config.shell.capture_chars },
    // Commands get the environment minus every provider's credentials, except the ones named here.
    env: { passEnv: config.shell.pass_env },
    protectedPaths,
    surfaces: createHostSurfaceCache({ protectedPaths, home: paths.home }),
    diagnostics: [],
  };
  const { diagnostics } = setup;

  const target =
    selectWorkspace(cwd, roots, options.flags, config) ??
    targetHere(options.flags.sandbox ?? config.sandbox.kind, { cwd, roots, source: "here" });
  const place = await target.open(setup);
  const { files, executor } = routeThroughEditor(setup, place);

  const { stateBackends, routes } = buildStateRoutes(options);
  diagnostics.push(...routes.diagnostics);
  const composite = createCompositeBackend(files, routes.items);

  const rules = compileFileRules(config.permissions);
  diagnostics.push(...rules.diagnostics);
  for (const d of diagnostics) options.logger.warn(`${d.source}: ${d.message}`);

  return {
    // Paths elsewhere are matched as given: this machine's links say nothing about them.
    backend: createGuardedBackend(composite, rules.items, { localPaths: place.realPathFs === undefined }),
    executor,
    ...(place.shell ? { shell: place.shell } : {}),
    virtualPrefixes: [...composite.routePrefixes],
    stateBackends,
    rules: rules.items,
    protectedPaths,
    ...(place.surfaces ? { surfaces: place.surfaces } : {}),
    sandboxed: place.sandboxed,
    cwd: place.cwd,
    roots: place.roots,
    place,
    ...(place.realPathFs ? { realPathFs: place.realPathFs } : {}),
    diagnostics,
    // Processes belong to their tool calls and die with the turn; the place lets go of what it holds.
    dispose: () => place.dispose(),
  };
}

/** Files through the editor when it offers fs, and commands in its terminals when offered and the place lets it. */
function routeThroughEditor(
  { options, limits }: PlaceSetup,
  place: Place,
): { files: BackendProtocol; executor: SandboxBackendProtocol | undefined } {
  const { roots, editor } = options;
  let files: BackendProtocol = place.files;
  let executor: SandboxBackendProtocol | undefined = place.shell;
  if (editor && place.editor) {
    const terminals = place.editor.terminals;
    const viaEditor = createEditorBackend({
      bridge: editor,
      roots,
      fallback: place.files,
      useEditorTerminals: terminals,
      ...limits,
    });
    if (editor.canReadFiles || editor.canWriteFiles) files = viaEditor;
    if (place.shell && editor.canRunTerminals && terminals && viaEditor.canExecute) {
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

/** session/delete and `sessions delete`: what a kind keeps for the session goes too (a container, if one was made). */
export async function removeSessionWorkspace(paths: UserPaths, sessionId: string): Promise<void> {
  for (const kind of placeKinds()) await kind.forgetSession?.(paths, sessionId);
}
