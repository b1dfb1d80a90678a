import { homedir } from "node:os";
import { loadConfigFile, type DeepAcpConfig } from "../config/config-file.js";
import { userPaths } from "../config/paths.js";
import { createModelService } from "../model/service.js";
import { createApprovalStore } from "../permissions/approval-store.js";
import { createPersistentApprovalMemory, type PersistentApprovalMemory } from "../gate/approval-memory.js";
import { createSessionStore } from "../transcript/index.js";
import { createConfigWatcherHub } from "../watch/index.js";
import type { SessionServices } from "../session/index.js";
import { type Diagnostic, formatDiagnostic } from "../util/diagnostics.js";
import type { Logger } from "../util/logger.js";
import type { CliOptions } from "./args.js";

export type ServicesOptions = {
  cli: CliOptions;
  env: NodeJS.ProcessEnv;
  logger: Logger;
  /** Default: os.homedir() (so HOME=/tmp/x isolates everything). */
  home?: string;
};

/** The composition root's shared services. Nothing here touches the disk until first use. */
export function createServices({ cli, env, logger, home = homedir() }: ServicesOptions): SessionServices {
  const paths = userPaths(cli.agent, home);
  let config: Promise<{ config: DeepAcpConfig; diagnostics: Diagnostic[] }> | undefined;
  const load = () =>
    loadConfigFile(paths.configFile).then((result) => {
      for (const d of result.diagnostics) logger.warn(formatDiagnostic(d));
      return result;
    });
  const approvalStore = createApprovalStore({ stateDir: paths.stateDir });
  const approvalMemories = new Map<string, PersistentApprovalMemory>();
  const services: SessionServices = {
    logger,
    paths,
    agentName: cli.agent,
    env,
    config: () => (config ??= load()),
    reloadConfig: () => (config = load()),
    models: createModelService({
      env,
      flag: cli.model,
      credentialsFile: paths.credentialsFile,
      config: () => services.config(),
      logger,
    }),
    now: () => new Date(),
    sessions: createSessionStore({ dir: paths.sessionsDir, logger: logger.child("sessions") }),
    watchHub: createConfigWatcherHub({ logger: logger.child("watch") }),
    approvalMemory(projectRoot) {
      let memory = approvalMemories.get(projectRoot);
      if (!memory) {
        memory = createPersistentApprovalMemory(approvalStore, projectRoot, logger);
        approvalMemories.set(projectRoot, memory);
      }
      return memory;
    },
    flags: {
      sandbox: cli.sandbox,
      trustProjectMcp: cli.trustProjectMcp,
      trustProjectHooks: cli.trustProjectHooks,
      mcpConfigPath: cli.mcpConfig,
      noMcp: cli.noMcp,
      ...(cli.remote ? { remote: cli.remote } : {}),
      ...(cli.trustRemoteHost ? { trustRemoteHost: true } : {}),
    },
  };
  return services;
}
