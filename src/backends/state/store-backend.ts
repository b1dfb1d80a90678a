import { join, resolve } from "node:path";
import { createFilesystemBackend, type FilesystemBackend } from "../local/filesystem-backend.js";
import type { FsOps } from "../paths/path-guard.js";
import type { SpawnFn } from "../search/ripgrep.js";

// Files that outlive a session (`/memories/`), kept as ordinary files under
// `<dir>/<namespace...>/` so a user can read and edit them. Each namespace component is one
// directory level, validated so a namespace cannot reach another tenant's files or inject globs.
// Writes are atomic (0600 files in 0700 directories); every path is confined to the namespace
// directory by the filesystem backend's virtual mode.

const NAMESPACE_COMPONENT = /^[A-Za-z0-9\-_.@+:~]+$/;

export class InvalidNamespaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidNamespaceError";
  }
}

export type StoreBackendOptions = {
  /** Store directory, e.g. `~/.deepagents/<agent>/store` (userPaths().storeDir). Created 0700 on first use. */
  dir: string;
  /** Default ["filesystem"]. Each component must match ^[A-Za-z0-9\-_.@+:~]+$ and not be "." or "..". */
  namespace?: string[];
  /** Default 10. */
  maxFileSizeMb?: number;
  /** Default: `rg` on PATH; false forces the JS walk. */
  ripgrep?: string | false;
  fs?: FsOps;
  spawn?: SpawnFn;
};

export interface StoreBackend extends FilesystemBackend {
  readonly namespace: readonly string[];
}

export function validateNamespace(namespace: readonly string[]): void {
  if (namespace.length === 0) throw new InvalidNamespaceError("store namespace must have at least one component");
  for (const component of namespace) {
    if (
      typeof component !== "string" ||
      !NAMESPACE_COMPONENT.test(component) ||
      component === "." ||
      component === ".."
    ) {
      throw new InvalidNamespaceError(
        `invalid store namespace component ${JSON.stringify(component)}: use letters, digits and - _ . @ + : ~`,
      );
    }
  }
}

/** Throws InvalidNamespaceError for a bad namespace (a programming error, not user input). */
export function createStoreBackend(options: StoreBackendOptions): StoreBackend {
  const namespace = options.namespace ?? ["filesystem"];
  validateNamespace(namespace);
  const files = createFilesystemBackend({
    rootDir: join(resolve(options.dir), ...namespace),
    virtualMode: true,
    createRoot: true,
    writeMode: "atomic",
    ...(options.maxFileSizeMb !== undefined ? { maxFileSizeMb: options.maxFileSizeMb } : {}),
    ...(options.ripgrep !== undefined ? { ripgrep: options.ripgrep } : {}),
    ...(options.fs ? { fs: options.fs } : {}),
    ...(options.spawn ? { spawn: options.spawn } : {}),
  });
  return Object.assign(files, { namespace: Object.freeze([...namespace]) });
}
