import { join } from "node:path";
import { hookPermissionMode, type SessionMode } from "../gate/decide/modes.js";
import { ExtensionHost } from "../extensions/index.js";
import type { PersistentApprovalMemory } from "../gate/memory/approval-memory.js";
import type { NoticeQueue } from "./notices.js";
import { hostKeyAnswer, hostKeyQuestion } from "./workspace/remote-workspace.js";
import { devContainerQuestion, planAnswer } from "./workspace/devcontainer-question.js";
import type { SessionOptions } from "./services.js";
import { createWorkspaceSlot, type WorkspaceSlot } from "./workspace/workspace-slot.js";

/** Skills, memory, subagents, plugins, hooks and MCP of one session. */
export function createSessionExtensions(
  options: SessionOptions,
  /** Read when a hook runs, so it sees the session's mode of that moment. */
  session: { readonly id: string; readonly cwd: string; readonly projectRoot: string; readonly mode: SessionMode },
): ExtensionHost {
  return new ExtensionHost({
    sessionId: session.id,
    cwd: session.cwd,
    projectRoot: session.projectRoot,
    services: options.services,
    editorMcpServers: options.editorMcpServers ?? [],
    prompter: options.trustPrompter,
    transcriptPath: join(options.services.paths.sessionsDir, `${session.id}.jsonl`),
    permissionMode: () => hookPermissionMode(session.mode),
    notify: options.notify ?? (() => false),
    ...(options.onReloadPending ? { onReloadPending: options.onReloadPending } : {}),
    ...(options.questioner ? { questioner: options.questioner } : {}),
  });
}

/** The session's workspace, built on first use; its problems go to `notices`. */
export function createSessionWorkspace(
  options: SessionOptions,
  session: {
    readonly id: string;
    readonly projectRoot: string;
    readonly cwd: string;
    readonly roots: readonly string[];
    readonly extensions: ExtensionHost;
    readonly approvals: PersistentApprovalMemory;
  },
  notices: NoticeQueue,
): WorkspaceSlot {
  const knownHosts = join(options.services.paths.home, ".ssh", "known_hosts");
  return createWorkspaceSlot({
    sessionId: session.id,
    projectRoot: session.projectRoot,
    onAnnounce: (url) =>
      options.updates?.({ type: "session_info", updatedAt: options.services.now().toISOString(), workspace: url }),
    cwd: session.cwd,
    roots: session.roots,
    editor: options.editor,
    stateSnapshots: options.restored?.stateSnapshots,
    services: options.services,
    // Only an editor can answer an unknown SSH host key, or agree to what a dev container will do.
    ...(options.trustPrompter
      ? {
          askHostKey: (key, url) => session.extensions.ask(hostKeyQuestion(key, url, knownHosts)).then(hostKeyAnswer),
          askDevContainer: (plan) => session.extensions.ask(devContainerQuestion(plan)).then(planAnswer),
        }
      : {}),
    alongside: () => session.approvals.load(),
    onDiagnostics: (diagnostics) => notices.addDiagnostics(diagnostics),
  });
}
