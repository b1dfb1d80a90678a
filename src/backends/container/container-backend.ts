import { posix } from "node:path";
import type { RemoteWorkspaceBackend } from "../ssh/ssh-backend.js";
import { createRemoteFiles, fileOperations } from "../ssh/ssh-files.js";
import { createRemoteRealPathFs } from "../ssh/ssh-real-path.js";
import { createRemoteSearch } from "../ssh/ssh-search.js";
import type { ContainerLink } from "./container-link.js";
import { executeInContainer, streamInContainer } from "./container-exec.js";
import { createContainerFs } from "./container-fs.js";

// A workspace inside a container: files, search and commands all go through the helper that is the
// container's main process (helper-script.ts), so links resolve inside the container, commands see
// only the container, and nothing from the agent's environment is there. The file layer and the
// search are the ones the SSH workspace uses, over the helper instead of SFTP.

export type ContainerBackendOptions = {
  link: ContainerLink;
  containerId: string;
  /** Absolute path of the project inside the container. */
  rootDir: string;
  /** Default 120000. */
  defaultTimeoutMs?: number;
  /** Default 30000 characters (head and tail). */
  maxOutputChars?: number;
  /** Default 2000: TERM to KILL. */
  killGraceMs?: number;
  /** Default 10. */
  maxFileSizeMb?: number;
  /** Default 30000. */
  searchTimeoutMs?: number;
  /** Default 100000. */
  globLimit?: number;
  /** Default: use rg when the image has it; false forces grep/find. */
  ripgrep?: boolean;
  /** Default `docker://<short id><rootDir>`. */
  id?: string;
};

export type ContainerHealth = {
  ok: boolean;
  containerId: string;
  /** Round trip to the helper, ms. */
  helperMs?: number;
  ripgrep?: boolean;
  rootExists?: boolean;
  reconnects: number;
  lastLoss?: string;
  error?: string;
};

export interface ContainerBackend extends RemoteWorkspaceBackend {
  readonly containerId: string;
  readonly link: ContainerLink;
  health(): Promise<ContainerHealth>;
  /** Lets go of the container: it stops (and stays, with its files). */
  close(): Promise<void>;
}

export function createContainerBackend(options: ContainerBackendOptions): ContainerBackend {
  const { link, containerId } = options;
  const rootDir = posix.resolve(options.rootDir);
  const target = `container ${containerId.slice(0, 12)}`;
  const fs = createContainerFs(link);
  const files = createRemoteFiles({ fs, rootDir, maxFileBytes: Math.floor((options.maxFileSizeMb ?? 10) * 1048576) });
  const search = createRemoteSearch({
    run: (command, timeoutMs, onStdout) => streamInContainer(link, command, timeoutMs, onStdout),
    target,
    fs,
    resolvePath: files.resolvePath,
    rootDir,
    timeoutMs: options.searchTimeoutMs ?? 30_000,
    globLimit: options.globLimit ?? 100_000,
    ...(options.ripgrep === false ? { ripgrep: false } : {}),
  });
  const guard =
    <A extends unknown[], R>(what: string, run: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R | { error: string }> => {
      try {
        return await run(...args);
      } catch (error) {
        return { error: `${what} failed: ${(error as Error).message}` };
      }
    };

  return {
    id: options.id ?? `docker://${containerId.slice(0, 12)}${rootDir}`,
    outputMode: "stream",
    rootDir,
    containerId,
    link,
    ...fileOperations(files),
    grep: guard("grep", search.grep),
    glob: guard("glob", search.glob),
    execute: (command, exec = {}) =>
      executeInContainer(link, command, {
        ...exec,
        cwd: exec.cwd ? files.resolvePath(exec.cwd) : rootDir,
        timeoutMs: exec.timeoutMs ?? options.defaultTimeoutMs ?? 120_000,
        maxOutputChars: options.maxOutputChars ?? 30_000,
        killGraceMs: options.killGraceMs ?? 2000,
        killBackgroundOnExit: true,
        target,
      }),
    // Background processes are the agent's own child processes (backends/background-processes.ts);
    // one inside a container would need the helper to keep it past the call, which is not built.
    backgroundSpec: () =>
      `background processes are not available in a container workspace (${target}); run the command in the foreground with a timeout`,
    realPath: files.realPath,
    realPathFs: createRemoteRealPathFs(fs),
    async health() {
      const base = { containerId, reconnects: link.reconnects, ...(link.lastLoss ? { lastLoss: link.lastLoss } : {}) };
      try {
        const channel = await link.channel();
        const started = performance.now();
        const [, rg] = await channel.request("ping");
        const helperMs = Math.round((performance.now() - started) * 100) / 100;
        const root = await fs.exists(rootDir);
        const ok = root?.isDirectory() === true;
        return {
          ...base,
          reconnects: link.reconnects,
          ok,
          helperMs,
          ripgrep: options.ripgrep !== false && rg?.toString() === "1",
          rootExists: ok,
          ...(ok ? {} : { error: `${rootDir} is not a directory in ${target}` }),
        };
      } catch (error) {
        return { ...base, ok: false, error: (error as Error).message };
      }
    },
    close: () => link.close(),
  };
}
