import { createLocalShellBackend } from "../../../backends/local/local-shell.js";
import type { Place, PlaceKind, PlaceSetup } from "../place.js";

// This machine, no sandbox: files on its disk (through the editor when it offers fs) and commands in a
// local shell that streams output (or the editor's terminals when offered). The place of every session
// that names no workspace URL and no sandbox.

export const localPlace: PlaceKind = {
  name: "local",
  schemes: [],
  // Registered last of the here kinds: this machine unsandboxed is what is left.
  here: () => true,
  select: () => ({ url: "", open: openLocal }),
};

async function openLocal({ options, limits, env, surfaces }: PlaceSetup): Promise<Place> {
  const { cwd, roots } = options;
  const shell = createLocalShellBackend({ rootDir: cwd, env, ...limits });
  return {
    files: shell,
    shell,
    cwd,
    roots: [...roots],
    surfaces,
    sandboxed: false,
    editor: { terminals: true },
    // Processes belong to their tool calls and die with the turn: nothing is held here.
    async dispose() {},
  };
}
