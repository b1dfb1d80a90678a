import { createCompactor, type Compactor } from "./compactor.js";
import type { AgentEvent } from "../../agent/events.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { HookEngine } from "../../hooks/index.js";
import type { ModelClient } from "../../model/types.js";
import type { BackendProtocol } from "../../backends/protocol.js";

export type SessionCompactorOptions = {
  sessionId: string;
  workspace: { backend: BackendProtocol };
  model: ModelClient;
  config: DeepAcpConfig;
  emit: (event: AgentEvent) => void;
  /** Characters of the system prompt and tool schemas, which take context too. */
  fixedChars: number;
  hooks: () => HookEngine;
};

/** The session's compactor: config thresholds, the history file in its workspace, PreCompact hooks. */
export function createSessionCompactor(options: SessionCompactorOptions): Compactor {
  const { config, hooks } = options;
  return createCompactor({
    // PreCompact hooks may refuse a compaction (exit 2 / decision "block").
    preCompact: async (trigger, signal, instructions) => {
      const engine = hooks();
      if (!engine.hasHandlers("PreCompact", trigger)) return { blocked: false };
      const result = await engine.run("PreCompact", { trigger, custom_instructions: instructions ?? "" }, { signal });
      return { blocked: result.blocked, ...(result.reason ? { reason: result.reason } : {}) };
    },
    baseTokens: () => Math.ceil(options.fixedChars / 4),
    model: options.model,
    backend: options.workspace.backend,
    sessionId: options.sessionId,
    emit: options.emit,
    triggerFraction: config.compaction.trigger_fraction,
    keepMessages: config.compaction.keep_messages,
  });
}
