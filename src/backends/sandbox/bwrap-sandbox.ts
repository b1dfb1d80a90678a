import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { buildBwrapArgs, DEFAULT_SYSTEM_PATHS, PROTECTED_ROOT_ENTRIES, type BwrapMounts } from "./bwrap-args.js";
import { anchorFolders, type HeldSurface } from "../paths/held-record.js";
import { createHeldGuard, withHeldNotes } from "../paths/held-guard.js";
import { createFilesystemBackend } from "../local/filesystem-backend.js";
import {
  checkWorkingDirectory,
  defaultShell,
  failedToStart,
  runLimits,
  withFileOperations,
} from "../local/local-shell.js";
import { isWithin } from "../../util/path-within.js";
import { runCommand, type SpawnProcessFn } from "../processes/process-runner.js";
import type { BackendProtocol, ExecuteOptions, ExecuteResponse, SandboxBackendProtocol } from "../protocol.js";
import { findExecutable, helperEnv } from "../search/ripgrep.js";
import { buildShellEnv, type ShellEnvPolicy } from "../processes/shell-env.js";
import type { BackgroundSpawnSpec } from "../protocol.js";

// `execute` under bubblewrap: the command sees system directories read-only, the session roots
// read-write, and nothing else of the host (no home, no other projects); no network unless enabled;
// every namespace unshared. It isolates the host, not the data: whatever is in the roots can still
// be read and, with network on, sent out. File operations are the agent's own (not sandboxed) and
// go to a filesystem backend, where file rules and approvals apply.

export type BwrapSandboxOptions = {
  /** Session roots, read-write at the same paths. The first is the default working directory. */
  roots: string[];
  /** Default false. */
  network?: boolean;
  /** Extra host paths visible read-only. Default none. */
  readOnlyPaths?: string[];
  /** Extra host paths visible read-write. Default none. */
  writablePaths?: string[];
  /** Default `bwrap` on PATH. */
  bwrapPath?: string;
  /** Paths relative to each root kept read-only (the gate's protected paths); `.git` and `.deepagents` always are. */
  protectedEntries?: readonly string[];
  /**
   * What decides what runs on the host for a command in `cwd` (the gate's resolveHostExecutionSurfaces,
   * one source for the gate and the sandbox): existing ones are bound read-only, the folders on the
   * way bound over themselves, and each is held (backends/paths/held-*.ts): what the command changed
   * anyway (a link replaced, a missing one created) is put back after it, and its output says so.
   * Default none (only `protectedEntries`).
   */
  hostSurfaces?: HostSurfaceSource;
  /** Hidden behind an empty scratch tmpfs. Default os.homedir(). */
  homeDir?: string;
  /** Default DEFAULT_SYSTEM_PATHS (bwrap-args.ts). */
  systemPaths?: string[];
  /** Default: inherit minus model credentials (shell-env.ts); TMPDIR is always /tmp inside. */
  env?: ShellEnvPolicy;
  /** Default 120000. */
  defaultTimeoutMs?: number;
  /** Default 30000. */
  maxOutputChars?: number;
  /** Default /bin/bash when present, else /bin/sh. */
  shell?: string;
  /** Default 2000. */
  killGraceMs?: number;
  /** Default true. */
  killBackgroundOnExit?: boolean;
  /** Default createFilesystemBackend({ rootDir: roots[0] }). */
  files?: BackendProtocol;
  /** Default `bwrap:<roots[0]>`. */
  id?: string;
  spawn?: SpawnProcessFn;
};

/** One path that decides what runs on the host, as the sandbox needs it. */
export type HostSurfaceEntry = { path: string; exists: boolean; reason: string; lexical?: string };

/** Where the sandbox gets them: resolved now, or (for a background process, started synchronously) the last answer. */
export type HostSurfaceSource = {
  resolve(cwd: string): Promise<readonly HostSurfaceEntry[]>;
  latest(cwd: string): readonly HostSurfaceEntry[] | undefined;
};

export interface BwrapSandboxBackend extends SandboxBackendProtocol {
  readonly roots: readonly string[];
  /** The bwrap arguments (before `--`) a command in `cwd` would run with. */
  sandboxArgs(cwd: string): string[];
}

export class SandboxConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "SandboxConfigError";
  }
}

export const BWRAP_NOT_INSTALLED = "bwrap not installed (apt-get install bubblewrap)";

export function createBwrapSandboxBackend(options: BwrapSandboxOptions): BwrapSandboxBackend {
  if (options.roots.length === 0) throw new SandboxConfigError("the bwrap sandbox needs at least one root");
  const roots = options.roots.map((r) => resolve(r));
  const mounts: BwrapMounts = {
    roots,
    readOnlyPaths: options.readOnlyPaths ?? [],
    writablePaths: options.writablePaths ?? [],
    network: options.network ?? false,
    homeDir: options.homeDir ?? homedir(),
    systemPaths: options.systemPaths ?? DEFAULT_SYSTEM_PATHS,
    ...(options.protectedEntries ? { protectedEntries: options.protectedEntries } : {}),
  };
  const visible = [...roots, ...mounts.writablePaths, ...mounts.readOnlyPaths].map((p) => resolve(p));
  const bwrap = options.bwrapPath ?? findExecutable("bwrap") ?? "bwrap";
  const shell = options.shell ?? defaultShell();
  const env = { ...buildShellEnv(options.env), TMPDIR: "/tmp" };
  const files = options.files ?? createFilesystemBackend({ rootDir: roots[0]! });

  const source = options.hostSurfaces;
  const surfacesFor = async (cwd: string): Promise<readonly HostSurfaceEntry[]> =>
    source ? source.resolve(cwd).catch(() => source.latest(cwd) ?? []) : [];
  const argsFor = (cwd: string, surfaces: readonly HostSurfaceEntry[]) => {
    const hostSurfaces = surfaces.filter((s) => s.exists).map((s) => s.path);
    return buildBwrapArgs({ ...mounts, hostSurfaces, anchors: anchorFolders(roots, hostSurfaces) }, cwd);
  };
  // Each root's literal entries (`.git`, `.vscode`, ... as written: a link there is held as a link) and the surfaces.
  const literal = [...new Set([...PROTECTED_ROOT_ENTRIES, ...(options.protectedEntries ?? [])])];
  const heldSurfaces = (surfaces: readonly HostSurfaceEntry[]): HeldSurface[] => [
    ...roots.flatMap((root) =>
      literal.map((entry) => ({ path: join(root, entry), reason: `a protected path (${entry})` })),
    ),
    ...surfaces.flatMap((s) => [s, ...(s.lexical ? [{ path: s.lexical, reason: s.reason }] : [])]),
  ];

  async function execute(command: string, exec: ExecuteOptions = {}): Promise<ExecuteResponse> {
    const cwd = exec.cwd ?? roots[0]!;
    const problem = checkWorkingDirectory(cwd);
    if (problem) return failedToStart(problem);
    if (!visible.some((p) => isWithin(resolve(cwd), p)))
      return failedToStart(`working directory is outside the sandbox: ${cwd}`);
    const surfaces = await surfacesFor(resolve(cwd));
    const guard = createHeldGuard(async () => ({ roots, surfaces: heldSurfaces(surfaces) }));
    const { result, notes } = await guard.around(() =>
      runCommand({
        file: bwrap,
        args: [...argsFor(resolve(cwd), surfaces), "--", shell, "-c", command],
        cwd,
        env,
        ...runLimits(options, exec),
      }),
    );
    // What a mount cannot hold (a link replaced, a path that did not exist) was put back: say so.
    return withHeldNotes(result, notes);
  }

  function backgroundSpec(command: string, cwd = roots[0]!): BackgroundSpawnSpec | string {
    const problem = checkWorkingDirectory(cwd);
    if (problem) return problem;
    if (!visible.some((p) => isWithin(resolve(cwd), p))) return `working directory is outside the sandbox: ${cwd}`;
    // Built synchronously: the last answer (the gate resolves it before every sandboxed command).
    const surfaces = source?.latest(resolve(cwd)) ?? [];
    return { file: bwrap, args: [...argsFor(resolve(cwd), surfaces), "--", shell, "-c", command], cwd, env };
  }

  return withFileOperations(files, {
    id: options.id ?? `bwrap:${roots[0]}`,
    roots,
    execute,
    backgroundSpec,
    sandboxArgs: (cwd: string) => argsFor(resolve(cwd), source?.latest(resolve(cwd)) ?? []),
  });
}

export type BwrapAvailability = { ok: true } | { ok: false; reason: string };

export type CheckBwrapOptions = {
  /** Default `bwrap` on PATH. */
  bwrapPath?: string;
  /** Default 10000. */
  timeoutMs?: number;
};

/**
 * Whether sandboxed commands can run here: finds bwrap and actually runs `true` in a sandbox, so a
 * kernel without unprivileged user namespaces is told apart from a missing binary.
 */
export function checkBwrapAvailable(options: CheckBwrapOptions = {}): Promise<BwrapAvailability> {
  const path = options.bwrapPath?.includes("/") ? options.bwrapPath : findExecutable(options.bwrapPath ?? "bwrap");
  if (!path || !isExecutable(path)) return Promise.resolve({ ok: false, reason: BWRAP_NOT_INSTALLED });
  const args = buildBwrapArgs(
    {
      roots: [],
      readOnlyPaths: [],
      writablePaths: [],
      network: false,
      homeDir: undefined,
      systemPaths: DEFAULT_SYSTEM_PATHS,
    },
    "/",
  );
  return new Promise((resolvePromise) => {
    execFile(
      path,
      [...args, "--", "/bin/sh", "-c", "true"],
      { timeout: options.timeoutMs ?? 10_000, env: helperEnv() },
      (error, _stdout, stderr) => {
        if (!error) return resolvePromise({ ok: true });
        const detail = (stderr || error.message).trim().split("\n")[0] ?? "";
        const namespaces =
          /namespace|uid map|setting up uid|operation not permitted|no permissions to creat|unshare/i.test(detail);
        resolvePromise({
          ok: false,
          reason: namespaces ? `user namespaces unavailable: ${detail}` : `bwrap cannot run a sandbox: ${detail}`,
        });
      },
    );
  });
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
