import type { PeerWireErrors } from "../peers/index.js";
import type { Approver } from "../gate/door/approver.js";
import type { AgentEvent } from "../agent/events.js";
import type { EditorBridge } from "../backends/editor/editor-bridge.js";
import type { Questioner } from "../tools/types.js";
import type { StateSnapshot } from "../backends/state/state-backend.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { EditorMcpServer } from "../mcp/index.js";
import type { RestoredSession } from "../transcript/index.js";
import type { ClientSystemPrompt } from "../turn/index.js";
import type { ExtensionFlags, ExtensionServices } from "../extensions/index.js";
import type { DialogEntry, TrustDialog } from "../gate/door/trust.js";
import type { ModelService } from "../model/client/service.js";
import type { PersistentApprovalMemory } from "../gate/memory/approval-memory.js";
import type { SessionStore } from "../transcript/index.js";

/** Everything a session shares with the rest of the process; built once by the composition root (cli/). */
export type SessionServices = ExtensionServices & {
  models: ModelService;
  /** Where conversations are kept (~/.deepagents/sessions). */
  sessions: SessionStore;
  /** Remembered "always" choices for a project root, shared by every session on that root. */
  approvalMemory(projectRoot: string): PersistentApprovalMemory;
  /** Today's date and platform for the system prompt; injectable for tests. */
  now(): Date;
  /** Overrides from the command line (take precedence over config.toml). */
  flags: SessionFlags;
};

export type SessionFlags = ExtensionFlags & {
  sandbox?: "none" | "bwrap";
  /** --remote ssh://[user@]host[:port]/abs/path: every session's workspace is there. */
  remote?: string;
  /** --workspace URL (ssh://, docker://IMAGE, devcontainer, with ?mount=bind): every session's workspace. */
  workspace?: string;
  /** --trust-remote-host: accept an unknown host key for this run. */
  trustRemoteHost?: boolean;
  /** --trust-devcontainer: build and start the project's dev container without asking (this run). */
  trustDevContainer?: boolean;
};

/** What a session reports beyond the agent's own events. */
export type SessionEvent =
  | AgentEvent
  /** `workspace`: where the session's files and commands are, when not on this machine's disk. */
  | { type: "session_info"; title?: string; updatedAt: string; workspace?: string }
  /** The thread entry of a question the door asks (a trust question), and then its answer. */
  | { type: "dialog_entry"; entry: DialogEntry };

export type SessionEventSink = (event: SessionEvent) => void;

/** What a session uses to reach its client: every one of them speaks under the session's id. */
export type SessionCollaborators = {
  approver: Approver;
  /** Shows ask_user questions (and MCP servers' elicitations); absent = ask in the conversation. */
  questioner?: Questioner;
  /** The editor's file system and terminals, when the client offers them. */
  editor?: EditorBridge;
  /** MCP servers the editor passed in session/new, load, resume or fork. */
  editorMcpServers?: EditorMcpServer[];
  /** The same servers as ACP sends them, for other ACP agents the user lets have them (`pass_mcp_servers`). */
  peerMcpServers?: readonly unknown[];
  /** The wire errors of a child agent's refused or impossible fs/terminal requests (acp/errors.ts). */
  peerErrors?: PeerWireErrors;
  /** Draws the door's trust questions (project MCP servers, hooks, skill links, host keys, dev containers). */
  trustDialog?: TrustDialog;
  /**
   * Delivers an event outside a turn (a config file changed, a hook started). Returns false when
   * the editor cannot show it now; it is then shown at the start of the next turn.
   */
  notify?: (event: SessionEvent) => boolean;
  /** Delivers tool-call updates of background processes at any time (they outlive their turn). */
  updates?: (event: SessionEvent) => void;
  /** What a /reload would apply, after each watched change; "" after /reload (ACP shows it on /reload). */
  onReloadPending?: (summary: string) => void;
};

/** Built only by createSession (factory.ts), which binds the collaborators to `id`. */
export type SessionOptions = SessionCollaborators & {
  id: string;
  cwd: string;
  additionalDirectories?: string[];
  mode?: SessionMode;
  modelSpec: string;
  /** The editor's instructions for the session (ACP `systemPrompt`), kept with it. */
  systemPrompt?: ClientSystemPrompt;
  services: SessionServices;
  /** A session read back from disk (load, resume, fork). */
  restored?: RestoredSession & { title?: string; stateSnapshots?: Record<string, StateSnapshot> };
  /** Already on disk (loaded or forked); new sessions are written at their first prompt. */
  persisted?: boolean;
};
