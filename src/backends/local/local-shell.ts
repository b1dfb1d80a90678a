import { accessSync, constants, statSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { backendForCall } from "../paths/approved-targets.js";
import { createFilesystemBackend } from "./filesystem-backend.js";
import { runCommand, type SpawnProcessFn } from "../processes/process-runner.js";
import type {
  BackendProtocol,
  BackgroundSpawnSpec,
  ExecuteOptions,
  ExecuteResponse,
  SandboxBackendProtocol,
} from "../protocol.js";
import { buildShellEnv, type ShellEnvPolicy } from "../processes/shell-env.js";

// Commands on the host, unisolated: the shell can reach anything the user can (see shell-env.ts for
// what it inherits). File operations go to a filesystem backend so this is a complete
// SandboxBackendProtocol. Background jobs end with their command unless they leave the process
// group (setsid); use the bwrap sandbox for isolation.

export type LocalShellBackendOptions = {
  /** Default working directory; relative paths of the file operations resolve against it. */
  rootDir: string;
  /** Default: inherit the parent environment minus model credentials (shell-env.ts). */
  env?: ShellEnvPolicy;
  /** Default 120000. Overridden per call by ExecuteOptions.timeoutMs. */
  defaultTimeoutMs?: number;
  /** Default 30000 characters of output kept (head and tail). */
  maxOutputChars?: number;
  /** Default /bin/bash when present, else /bin/sh. Run as `<shell> -c <command>`. */
  shell?: string;
  /** Default 2000: time between SIGTERM and SIGKILL. */
  killGraceMs?: number;
  /** Default true: processes left in the command's group are killed when it exits. */
  killBackgroundOnExit?: boolean;
  /** Default createFilesystemBackend({ rootDir }). */
  files?: BackendProtocol;
  /** Default `local:<rootDir>`. */
  id?: string;
  /** Default node:child_process spawn. */
  spawn?: SpawnProcessFn;
};

export interface LocalShellBackend extends SandboxBackendProtocol {
  readonly rootDir: string;
}

export function defaultShell(): string {
  for (const candidate of ["/bin/bash", "/usr/bin/bash"]) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // try the next
    }
  }
  return "/bin/sh";
}

/** A cwd check with a readable message instead of spawn's ENOENT. */
export function checkWorkingDirectory(cwd: string): string | undefined {
  if (!isAbsolute(cwd)) return `working directory must be absolute: ${cwd}`;
  try {
    if (!statSync(cwd).isDirectory()) return `working directory is not a directory: ${cwd}`;
  } catch {
    return `working directory does not exist: ${cwd}`;
  }
  return undefined;
}

/** The shell backends' shared settings of one run: limits, kill policy, the call's signal and output. */
export type RunLimitOptions = {
  defaultTimeoutMs?: number;
  maxOutputChars?: number;
  killGraceMs?: number;
  killBackgroundOnExit?: boolean;
  spawn?: SpawnProcessFn;
};

/** What runCommand takes besides the program: the defaults every shell backend uses. */
export function runLimits(options: RunLimitOptions, exec: ExecuteOptions) {
  return {
    timeoutMs: exec.timeoutMs ?? options.defaultTimeoutMs ?? 120_000,
    maxOutputChars: options.maxOutputChars ?? 30_000,
    killGraceMs: options.killGraceMs ?? 2000,
    killBackgroundOnExit: options.killBackgroundOnExit ?? true,
    ...(exec.signal ? { signal: exec.signal } : {}),
    ...(exec.onOutput ? { onOutput: exec.onOutput } : {}),
    ...(options.spawn ? { spawn: options.spawn } : {}),
  };
}

export function failedToStart(message: string): ExecuteResponse {
  return {
    output: `Failed to start command: ${message}`,
    exitCode: null,
    signal: null,
    truncated: false,
    timedOut: false,
  };
}

export function createLocalShellBackend(options: LocalShellBackendOptions): LocalShellBackend {
  const rootDir = resolve(options.rootDir);
  const files = options.files ?? createFilesystemBackend({ rootDir });
  const shell = options.shell ?? defaultShell();
  const env = buildShellEnv(options.env);

  async function execute(command: string, exec: ExecuteOptions = {}): Promise<ExecuteResponse> {
    const cwd = exec.cwd ?? rootDir;
    const problem = checkWorkingDirectory(cwd);
    if (problem) return failedToStart(problem);
    return runCommand({
      file: shell,
      args: ["-c", command],
      cwd,
      env,
      ...runLimits(options, exec),
    });
  }

  function backgroundSpec(command: string, cwd = rootDir): BackgroundSpawnSpec | string {
    return checkWorkingDirectory(cwd) ?? { file: shell, args: ["-c", command], cwd, env };
  }

  return withFileOperations(files, { id: options.id ?? `local:${rootDir}`, rootDir, execute, backgroundSpec });
}

/** A sandbox backend whose file operations are those of `files`. */
export function withFileOperations<T extends { id: string; execute: SandboxBackendProtocol["execute"] }>(
  files: BackendProtocol,
  extra: T,
): BackendProtocol & T {
  const ops: BackendProtocol = {
    ls: (p) => files.ls(p),
    read: (p, o, l) => files.read(p, o, l),
    readRaw: (p) => files.readRaw(p),
    write: (p, c) => files.write(p, c),
    edit: (p, o, n, r) => files.edit(p, o, n, r),
    grep: (p, path, g, m) => files.grep(p, path, g, m),
    glob: (p, path) => files.glob(p, path),
  };
  if (files.delete) ops.delete = (p) => files.delete!(p);
  if (files.uploadFiles) ops.uploadFiles = (f) => files.uploadFiles!(f);
  if (files.downloadFiles) ops.downloadFiles = (p) => files.downloadFiles!(p);
  if (files.forCall) ops.forCall = (approved) => withFileOperations(backendForCall(files, approved), extra);
  return Object.assign(ops, extra);
}
