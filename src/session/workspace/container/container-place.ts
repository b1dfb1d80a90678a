import { posix } from "node:path";
import { parseContainerUrl, type ContainerSpec } from "../../../backends/container/container-url.js";
import type { ContainerWorkspace } from "../../../backends/container/container-workspace.js";
import { findProjectRoot } from "../../../config/project-root.js";
import { relativeWithin } from "../../../util/path-within.js";
import { hostExecutionPaths } from "../host-execution-paths.js";
import { remoteMentions } from "../mentions.js";
import type { Place, PlaceChanges, PlaceKind, PlaceSetup, PlaceTarget } from "../place.js";
import { bindModeHold } from "./bind-held.js";
import { containerSurfaceCache } from "./container-surfaces.js";
import { devContainerMemory } from "./devcontainer-memory.js";

// A container (docker://IMAGE or devcontainer, each with ?mount=bind): files and commands inside it;
// the editor's fs and terminals and the local sandbox are never used. Copy mode holds its own copy of
// the project, so this is the kind with changes to list and apply. The container modules load only
// when a container session opens.

export const containerPlace: PlaceKind = {
  name: "container",
  schemes: ["docker", "devcontainer"],
  usage: "docker://IMAGE or devcontainer (with ?mount=bind)",
  select: (url, at) => containerTarget(url, parseContainerUrl(url), at.source),
  async forgetSession(paths, sessionId) {
    const { removeSessionContainer } = await import("../../../backends/container/session-containers.js");
    await removeSessionContainer(paths.stateDir, sessionId);
  },
};

function containerTarget(url: string, spec: ContainerSpec, source: string): PlaceTarget & { spec: ContainerSpec } {
  return {
    url,
    spec,
    open: (setup) => openContainer(setup, { url, spec, source }),
    async check({ cwd }) {
      const { checkContainerWorkspace } = await import("../../../backends/container/container-check.js");
      const { ok, summary } = await checkContainerWorkspace(spec, findProjectRoot(cwd));
      return { ok, summary, title: "Container workspace" };
    },
  };
}

async function openContainer(
  { options, limits, diagnostics, surfaces, protectedPaths }: PlaceSetup,
  selection: { url: string; spec: ContainerSpec; source: string },
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
  const { openContainerWorkspace } = await import("../../../backends/container/container-workspace.js");
  const opened = await openContainerWorkspace({
    spec: selection.spec,
    sessionId: options.sessionId,
    hostRoot: options.projectRoot,
    stateDir: paths.stateDir,
    home: paths.home,
    consent: {
      ...(options.askDevContainer ? { ask: options.askDevContainer } : {}),
      ...(options.flags.trustDevContainer ? { trusted: true } : {}),
      memory: devContainerMemory(paths.stateDir, options.projectRoot),
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
  const inside = { cwd: map(cwd) ?? containerRoot, roots: [map(cwd) ?? containerRoot] };
  for (const dir of roots) {
    const mapped = dir === cwd ? undefined : map(dir);
    if (mapped) inside.roots.push(mapped);
    else if (dir !== cwd)
      diagnostics.push({
        severity: "warning",
        source: "workspace",
        message: `${dir} is not in the container; it is not part of this session`,
      });
  }
  for (const note of opened.notes) diagnostics.push({ severity: "warning", source: "workspace", message: note });
  return {
    files: opened.backend,
    shell: opened.backend,
    ...inside,
    // Links are followed inside the container; its paths are matched against the host's surfaces
    // (container-surfaces.ts), and its copy again at /apply.
    realPathFs: opened.backend.realPathFs,
    surfaces: containerSurfaceCache(surfaces, hostRoot, containerRoot),
    sandboxed: false,
    announce: selection.url,
    mentions: (blocks, localCwd) => remoteMentions(blocks, localCwd, inside.cwd),
    async status() {
      const { describeContainerWorkspace } = await import("../../../backends/container/container-status.js");
      return {
        label: "Container workspace",
        text: `${await describeContainerWorkspace(opened)} (from ${selection.source})`,
      };
    },
    changes: containerChanges(opened),
    // The container is let go of: it stops, and keeps its files.
    dispose: () => opened.backend.close(),
  };
}

/** /changes and /apply (container-changes.ts, loaded only when used). */
function containerChanges(workspace: ContainerWorkspace): PlaceChanges {
  return {
    async describe(config) {
      const { describeChanges, listContainerChanges } = await import("../container-changes.js");
      const listed = await listContainerChanges(workspace, config);
      return "error" in listed ? listed.error : describeChanges(workspace, listed);
    },
    async apply(options) {
      const { applyContainerChanges } = await import("../container-changes.js");
      return applyContainerChanges({ ...options, workspace });
    },
  };
}
