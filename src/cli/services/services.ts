import { createApprovalStore } from "../../gate/memory/approval-store.js";
import { createPersistentApprovalMemory, type PersistentApprovalMemory } from "../../gate/memory/approval-memory.js";
import { createSessionStore } from "../../transcript/index.js";
import { createConfigWatcherHub } from "../../watch/index.js";
import type { SessionServices } from "../../session/index.js";
import { createCoreServices, type ServicesOptions } from "./core-services.js";

export type { ServicesOptions } from "./core-services.js";

/**
 * The composition root's shared services: the core (config, models) and the rest. Nothing here
 * touches the disk until first use.
 */
export function createServices(options: ServicesOptions): SessionServices {
  const { cli, logger } = options;
  const core = createCoreServices(options);
  const { paths } = core;
  const approvalStore = createApprovalStore({ stateDir: paths.stateDir });
  const approvalMemories = new Map<string, PersistentApprovalMemory>();
  const services: SessionServices = {
    ...core,
    agentName: cli.agent,
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
      ...(cli.workspace ? { workspace: cli.workspace } : {}),
      ...(cli.trustRemoteHost ? { trustRemoteHost: true } : {}),
      ...(cli.trustDevContainer ? { trustDevContainer: true } : {}),
    },
  };
  return services;
}
