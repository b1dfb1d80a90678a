import type { BackendProtocol, SandboxBackendProtocol } from "../backends/protocol.js";
import { createEditorBackend } from "../backends/editor-backend.js";
import type { EditorBridge } from "../backends/editor-bridge.js";
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

/**
 * Files: through the editor when it offers fs (unsaved buffers, edit review), else the local disk.
 * Commands: in editor terminals when offered, else a local shell that streams output.
 */
export async function createWorkspace(options: WorkspaceOptions): Promise<Workspace> {
  const { cwd, roots, config, editor } = options;
  const limits = { defaultTimeoutMs: config.shell.timeout_seconds * 1000, maxOutputChars: config.shell.output_chars };
  const shell = createLocalShellBackend({ rootDir: cwd, ...limits });
  let backend: BackendProtocol = shell;
  let executor: SandboxBackendProtocol = shell;
  if (editor) {
    const viaEditor = createEditorBackend({ bridge: editor, roots, fallback: shell, ...limits });
    if (editor.canReadFiles || editor.canWriteFiles) backend = viaEditor;
    if (editor.canRunTerminals && viaEditor.canExecute) {
      executor = Object.assign(viaEditor as unknown as SandboxBackendProtocol, { outputMode: "editor-terminal" as const });
    }
  }
  return {
    backend,
    executor,
    virtualPrefixes: [],
    async dispose() {
      // Processes belong to their tool calls and die with the turn; nothing else is held here.
    },
  };
}
