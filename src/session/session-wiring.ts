import { join } from "node:path";
import { hookPermissionMode, type SessionMode } from "../gate/decide/modes.js";
import { ExtensionHost } from "../extensions/index.js";
import type { PersistentApprovalMemory } from "../gate/memory/approval-memory.js";
import type { NoticeQueue } from "./notices.js";
import { createDoor, type Door } from "../gate/door/door.js";
import { trustThroughDoor, turnDoor } from "../gate/seams/through-door.js";
import type { SessionOutlet } from "./turn-observer.js";
import { hostKeyAnswer, hostKeyQuestion } from "./workspace/remote-workspace.js";
import { devContainerQuestion, planAnswer } from "./workspace/devcontainer-question.js";
import type { SessionOptions } from "./services.js";
import { createWorkspaceSlot, type WorkspaceSlot } from "./workspace/workspace-slot.js";

/** The session's one door: the editor's dialogs draw what it asks; trust entries go up through `outlet`. */
export function createSessionDoor(options: SessionOptions, outlet: SessionOutlet): Door {
  return createDoor(
    {
      approver: options.approver,
      ...(options.questioner ? { questioner: options.questioner } : {}),
      ...(options.trustDialog ? { trust: options.trustDialog } : {}),
    },
    outlet.dialog,
  );
}

/** Skills, memory, subagents, plugins, hooks and MCP of one session. */
export function createSessionExtensions(
  options: SessionOptions,
  /** Read when a hook runs, so it sees the session's mode of that moment. */
  session: { readonly id: string; readonly cwd: string; readonly projectRoot: string; readonly mode: SessionMode },
  outlet: SessionOutlet,
  door: Door,
): ExtensionHost {
  return new ExtensionHost({
    sessionId: session.id,
    cwd: session.cwd,
    projectRoot: session.projectRoot,
    services: options.services,
    editorMcpServers: options.editorMcpServers ?? [],
    door: turnDoor(door),
    transcriptPath: join(options.services.paths.sessionsDir, `${session.id}.jsonl`),
    permissionMode: () => hookPermissionMode(session.mode),
    observer: outlet,
    ...(door.questioner ? { questioner: door.questioner } : {}),
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
    readonly approvals: PersistentApprovalMemory;
  },
  notices: NoticeQueue,
  outlet: SessionOutlet,
  door: Door,
): WorkspaceSlot {
  const trust = trustThroughDoor(door);
  const knownHosts = join(options.services.paths.home, ".ssh", "known_hosts");
  return createWorkspaceSlot({
    sessionId: session.id,
    projectRoot: session.projectRoot,
    onAnnounce: (url) =>
      outlet.later({ type: "session_info", updatedAt: options.services.now().toISOString(), workspace: url }),
    cwd: session.cwd,
    roots: session.roots,
    editor: options.editor,
    stateSnapshots: options.restored?.stateSnapshots,
    services: options.services,
    // Only an editor can answer an unknown SSH host key, or agree to what a dev container will do.
    ...(trust.interactive
      ? {
          askHostKey: (key, url) => trust.ask(hostKeyQuestion(key, url, knownHosts)).then(hostKeyAnswer),
          askDevContainer: (plan) => trust.ask(devContainerQuestion(plan)).then(planAnswer),
        }
      : {}),
    alongside: () => session.approvals.load(),
    onDiagnostics: (diagnostics) => notices.addDiagnostics(diagnostics),
  });
}
