import type { AgentEvent } from "../agent/events.js";
import type { ExtensionFlags, ExtensionServices } from "../extensions/index.js";
import type { ModelService } from "../model/service.js";
import type { PersistentApprovalMemory } from "../gate/approval-memory.js";
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
};

/** What a session reports beyond the agent's own events. */
export type SessionEvent =
  | AgentEvent
  | { type: "session_info"; title?: string; updatedAt: string };

export type SessionEventSink = (event: SessionEvent) => void;
