import type { BackendProtocol, SandboxBackendProtocol } from "../backends/protocol.js";
import { createEditorBackend, type EditorBridge } from "../backends/editor-backend.js";
import { createFilesystemBackend } from "../backends/filesystem-backend.js";
import { createLocalShellBackend } from "../backends/local-shell.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import type { UserPaths } from "../config/paths.js";
import type { Logger } from "../util/logger.js";
import type { SessionFlags } from "./services.js";

/** Where a session's file tools and commands go. */
export type Workspace = {
  backend: BackendProtocol;
  /** Absent when the session cannot run commands. */
  executor?: SandboxBackendProtocol;
  /** Route prefixes of the agent's own storage (/memories/, ...). */
  virtualPrefixes: string[];
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
};

export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const { cwd, roots, config, editor } = options;
  const local = createFilesystemBackend({ rootDir: cwd });
  const shell = createLocalShellBackend({ rootDir: cwd, defaultTimeoutMs: config.shell.timeout_seconds * 1000, maxOutputChars: config.shell.output_chars });
  const useEditorFiles = editor !== undefined && (editor.canReadFiles || editor.canWriteFiles);
  const useEditorTerminal = editor !== undefined && editor.canRunTerminals;
  const editorBackend = editor && (useEditorFiles || useEditorTerminal) ? createEditorBackend({ bridge: editor, roots, fallback: local, fallbackExecutor: shell }) : undefined;
  const backend: BackendProtocol = useEditorFiles && editorBackend ? editorBackend : local;
  const executor: SandboxBackendProtocol = useEditorTerminal && editorBackend ? editorBackend : shell;
  return {
    backend,
    executor,
    virtualPrefixes: [],
    async dispose() {
      // Local processes are owned by their tool calls and die with the turn; nothing else is held.
    },
  };
}
