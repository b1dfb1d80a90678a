import {
  checkBwrapAvailable,
  createBwrapSandboxBackend,
  type HostSurfaceSource,
} from "../../../backends/sandbox/bwrap-sandbox.js";
import { createLocalShellBackend } from "../../../backends/local/local-shell.js";
import type { HostSurfaceCache } from "../../../gate/surfaces/host-surface-cache.js";
import type { HostExecutionSurfaces } from "../../../gate/surfaces/host-surfaces.js";
import { holdsHome, homeRootMessage } from "../../../util/home-root.js";
import { isWithin } from "../../../util/path-within.js";
import type { Place, PlaceKind, PlaceSetup } from "../place.js";

// This machine with commands inside bubblewrap (`--sandbox bwrap` or `[sandbox] kind = "bwrap"`):
// files on its disk (through the editor when it offers fs), commands never in an editor terminal
// (those are not sandboxed), and none at all when bubblewrap cannot run.

export const sandboxPlace: PlaceKind = {
  name: "bwrap",
  schemes: [],
  here: (sandbox) => sandbox === "bwrap",
  select: () => ({ url: "", open: openSandbox }),
};

async function openSandbox(setup: PlaceSetup): Promise<Place> {
  const { options, limits, env } = setup;
  const { cwd, roots } = options;
  const shell = await sandboxShell(setup);
  return {
    // Without a sandbox the files are still read and written here; only commands are refused.
    files: shell ?? createLocalShellBackend({ rootDir: cwd, env, ...limits }),
    ...(shell ? { shell } : {}),
    cwd,
    roots: [...roots],
    surfaces: setup.surfaces,
    sandboxed: shell !== undefined,
    editor: { terminals: false },
    async dispose() {},
  };
}

/** Commands in bubblewrap; undefined (no commands) when HOME would be writable or bubblewrap is unavailable. */
async function sandboxShell({ options, limits, env, protectedPaths, surfaces, diagnostics }: PlaceSetup) {
  const { roots, config } = options;
  // A writable HOME would leave the sandbox nothing to protect (~/.ssh, ~/.bashrc): no commands then.
  const writable = [...roots, ...config.sandbox.writable_paths];
  const holding = (await Promise.all(writable.map((dir) => holdsHome(dir, options.paths.home)))).indexOf(true);
  if (holding >= 0) {
    const message = homeRootMessage(writable[holding]!, options.paths.home, "the bubblewrap sandbox");
    diagnostics.push({ severity: "error", source: "sandbox", message: `${message} Shell commands are disabled.` });
    return undefined;
  }
  const availability = await checkBwrapAvailable();
  if (availability.ok)
    return createBwrapSandboxBackend({
      roots: [...roots],
      network: config.sandbox.network,
      readOnlyPaths: config.sandbox.read_only_paths,
      writablePaths: config.sandbox.writable_paths,
      protectedEntries: protectedPaths.entries,
      hostSurfaces: sandboxSurfaces(surfaces, roots),
      env,
      ...limits,
    });
  // Never fall back to an unsandboxed shell: the user asked for isolation.
  diagnostics.push({
    severity: "error",
    source: "sandbox",
    message: `bubblewrap sandbox unavailable: ${availability.reason}; shell commands are disabled`,
  });
  return undefined;
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
