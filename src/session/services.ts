import type { AgentEvent } from "../agent/events.js";
import type { UserPaths } from "../config/paths.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import type { ModelService } from "./model-service.js";
import type { PersistentApprovalMemory } from "../gate/approval-memory.js";
import type { SessionStore } from "./store/index.js";
import type { ConfigWatcherHub } from "../watch/index.js";
import type { Diagnostic } from "../util/diagnostics.js";
import type { Logger } from "../util/logger.js";

/** Everything a session shares with the rest of the process; built once by the composition root (cli/). */
export type SessionServices = {
  logger: Logger;
  paths: UserPaths;
  /** `--agent` name (memory, skills and subagent dirs live under ~/.deepagents/<agent>). */
  agentName: string;
  env: NodeJS.ProcessEnv;
  /** User config (config.toml), loaded once and reloaded by /reload. */
  config(): Promise<{ config: DeepAcpConfig; diagnostics: Diagnostic[] }>;
  reloadConfig(): Promise<{ config: DeepAcpConfig; diagnostics: Diagnostic[] }>;
  models: ModelService;
  /** Where conversations are kept (~/.deepagents/sessions). */
  sessions: SessionStore;
  /** Watches config files for every session; sessions on one project root share a watcher set. */
  watchHub: ConfigWatcherHub;
  /** Remembered "always" choices for a project root, shared by every session on that root. */
  approvalMemory(projectRoot: string): PersistentApprovalMemory;
  /** Today's date and platform for the system prompt; injectable for tests. */
  now(): Date;
  /** Overrides from the command line (take precedence over config.toml). */
  flags: SessionFlags;
};

export type SessionFlags = {
  sandbox?: "none" | "bwrap";
  trustProjectMcp?: boolean;
  trustProjectHooks?: boolean;
  mcpConfigPath?: string;
  noMcp?: boolean;
  /** Headless `--yes`: approve everything that would ask. */
  autoApprove?: boolean;
};

/** What a session reports beyond the agent's own events. */
export type SessionEvent =
  | AgentEvent
  | { type: "session_info"; title?: string; updatedAt: string };

export type SessionEventSink = (event: SessionEvent) => void;
