import type { DeepAcpConfig } from "../config/config-file.js";
import type { UserPaths } from "../config/paths.js";
import type { Diagnostic } from "../util/diagnostics.js";
import type { Logger } from "../util/logger.js";
import type { ConfigWatcherHub } from "../watch/index.js";

/** The part of the process-wide services that loading and hosting extensions needs. */
export type ExtensionServices = {
  logger: Logger;
  paths: UserPaths;
  /** `--agent` name (memory, skills and subagent dirs live under ~/.deepagents/<agent>). */
  agentName: string;
  env: NodeJS.ProcessEnv;
  /** User config (config.toml), loaded once and reloaded by /reload. */
  config(): Promise<{ config: DeepAcpConfig; diagnostics: Diagnostic[] }>;
  reloadConfig(): Promise<{ config: DeepAcpConfig; diagnostics: Diagnostic[] }>;
  /** Watches config files for every session; sessions on one project root share a watcher set. */
  watchHub: ConfigWatcherHub;
  flags: ExtensionFlags;
};

/** Command-line overrides for extensions (they take precedence over config.toml). */
export type ExtensionFlags = {
  trustProjectMcp?: boolean;
  trustProjectHooks?: boolean;
  mcpConfigPath?: string;
  noMcp?: boolean;
};
