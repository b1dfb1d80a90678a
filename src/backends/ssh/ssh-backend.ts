import { posix } from "node:path";
import type { ExecuteOptions, ExecuteResponse, SandboxBackendProtocol } from "../protocol.js";
import type { DeleteResult, FileDownloadResponse, FileUploadResponse } from "../protocol.js";
import type { RealPathFs } from "../paths/real-path.js";
import type { SshConnection, SshConnectionStatus } from "./ssh-connection.js";
import { remoteLinkCounts } from "./ssh-link-counts.js";
import { createRemoteRealPathFs } from "./ssh-real-path.js";
import { executeRemote, streamRemote } from "./ssh-exec.js";
import { createRemoteFiles, fileOperations } from "./ssh-files.js";
import { createRemoteSearch } from "./ssh-search.js";
import { createRemoteFs } from "./ssh-sftp.js";

// A workspace on another machine, reached over one SSH connection: files over SFTP, grep/glob and
// commands in exec channels. Nothing runs on the remote but its shell and standard tools; no
// helper is installed there, and nothing from the local environment (API keys included) is sent.

export type SshBackendOptions = {
  connection: SshConnection;
  /** Absolute path of the workspace on the remote. */
  rootDir: string;
  /** Default 120000. Overridden per call by ExecuteOptions.timeoutMs. */
  defaultTimeoutMs?: number;
  /** Default 30000 characters of output kept (head and tail). */
  maxOutputChars?: number;
  /** Default 2000: time between SIGTERM and SIGKILL for the remote process group. */
  killGraceMs?: number;
  /** Default true: processes left in the command's group are killed when it exits. */
  killBackgroundOnExit?: boolean;
  /** Default 10. */
  maxFileSizeMb?: number;
  /** Default 30000. */
  searchTimeoutMs?: number;
  /** Default 100000. */
  globLimit?: number;
  /** Default: use `rg` when the remote has it; false forces grep/find. */
  ripgrep?: boolean;
  /** Default `ssh://<user@host[:port]><rootDir>`. */
  id?: string;
};

/** A workspace whose files are elsewhere (a remote host, a container): every file operation, and links resolved there. */
export interface RemoteWorkspaceBackend extends SandboxBackendProtocol {
  readonly rootDir: string;
  delete(filePath: string): Promise<DeleteResult>;
  uploadFiles(files: Array<[string, Uint8Array]>): Promise<FileUploadResponse[]>;
  downloadFiles(paths: string[]): Promise<FileDownloadResponse[]>;
  /** The path with symlinks resolved where the files are; throws when it does not exist. */
  realPath(path: string): Promise<string>;
  /** realpath/stat/lstat/readlink where the files are, for the gate's real-path resolution. */
  readonly realPathFs: RealPathFs;
}

export interface SshBackend extends RemoteWorkspaceBackend {
  /** user@host[:port] */
  readonly target: string;
  /** Whether the remote answers, and how the connection is doing (for /status and doctor). */
  health(): Promise<SshHealth>;
  status(): SshConnectionStatus;
  /** Closes the connection; later calls fail. */
  close(): Promise<void>;
}

export type SshHealth = SshConnectionStatus & { ok: boolean; rootExists?: boolean; ripgrep?: boolean; error?: string };

export function createSshBackend(options: SshBackendOptions): SshBackend {
  const { connection } = options;
  const rootDir = posix.resolve(options.rootDir);
  const fs = createRemoteFs(connection);
  const files = createRemoteFiles({
    fs,
    rootDir,
    maxFileBytes: Math.floor((options.maxFileSizeMb ?? 10) * 1024 * 1024),
  });
  const search = createRemoteSearch({
    run: (command, timeoutMs, onStdout) => streamRemote(connection, command, timeoutMs, onStdout),
    target: connection.target,
    fs,
    linkCounts: (paths) => remoteLinkCounts(connection, paths),
    rootDir,
    resolvePath: files.resolvePath,
    timeoutMs: options.searchTimeoutMs ?? 30_000,
    globLimit: options.globLimit ?? 100_000,
    ...(options.ripgrep === false ? { ripgrep: false } : {}),
  });

  async function execute(command: string, exec: ExecuteOptions = {}): Promise<ExecuteResponse> {
    const cwd = exec.cwd ? files.resolvePath(exec.cwd) : rootDir;
    return executeRemote(connection, command, {
      ...exec,
      cwd,
      timeoutMs: exec.timeoutMs ?? options.defaultTimeoutMs ?? 120_000,
      maxOutputChars: options.maxOutputChars ?? 30_000,
      killGraceMs: options.killGraceMs ?? 2000,
      killBackgroundOnExit: options.killBackgroundOnExit ?? true,
    });
  }

  return {
    id: options.id ?? `ssh://${connection.target}${rootDir}`,
    outputMode: "stream",
    rootDir,
    target: connection.target,
    ...fileOperations(files),
    grep: async (pattern, path, glob, maxCount) => {
      try {
        return await search.grep(pattern, path, glob, maxCount);
      } catch (error) {
        return { error: `grep failed: ${(error as Error).message}` };
      }
    },
    glob: async (pattern, path) => {
      try {
        return await search.glob(pattern, path);
      } catch (error) {
        return { error: `glob failed: ${(error as Error).message}` };
      }
    },
    execute,
    // Background processes are local child processes (backends/background-processes.ts); a remote
    // one would need a channel kept open past the call, which is not built yet.
    backgroundSpec: () =>
      `background processes are not available on a remote workspace (${connection.target}); run the command in the foreground with a timeout`,
    realPath: files.realPath,
    realPathFs: { ...createRemoteRealPathFs(fs), linkCounts: (paths) => remoteLinkCounts(connection, paths) },
    async health() {
      try {
        await connection.connect();
        const root = await fs.exists(rootDir);
        const ripgrep = await search.hasRipgrep();
        const ok = root?.isDirectory() === true;
        return {
          ...connection.status(),
          ok,
          rootExists: ok,
          ripgrep,
          ...(ok ? {} : { error: `${rootDir} is not a directory on ${connection.target}` }),
        };
      } catch (error) {
        return { ...connection.status(), ok: false, error: (error as Error).message };
      }
    },
    status: () => connection.status(),
    close: () => connection.close(),
  };
}

/** One line for /status and doctor: where, whether it answers, and how the connection is doing. */
export function describeSshHealth(url: string, health: SshHealth): string {
  if (!health.ok) return `${url} — unreachable: ${health.error ?? "unknown error"}`;
  const parts = [`connected as ${health.target}`];
  if (health.lastConnectMs !== undefined) parts.push(`connect ${health.lastConnectMs} ms`);
  if (health.reconnects > 0) parts.push(`${health.reconnects} reconnect${health.reconnects === 1 ? "" : "s"}`);
  parts.push(health.ripgrep ? "search with rg" : "search with grep/find (no rg on the host)");
  return `${url} — ${parts.join(", ")}`;
}
