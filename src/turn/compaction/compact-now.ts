import type { AgentEvent, TurnResult } from "../../agent/events.js";
import type { BackendProtocol } from "../../backends/protocol.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { HookEngine } from "../../hooks/index.js";
import type { Message, ModelClient } from "../../model/types.js";
import { createSessionCompactor } from "./setup.js";

export type CompactNowInput = {
  sessionId: string;
  workspace: { backend: BackendProtocol };
  model: ModelClient;
  config: DeepAcpConfig;
  hooks: HookEngine;
  emit(event: AgentEvent): void;
  history: readonly Message[];
  /** What the summary should keep (the text after `/compact`). */
  instructions: string;
  signal: AbortSignal;
};

/** `messages` is the conversation to adopt when something was compacted; `message` a line for the user. */
export type CompactNowResult = { outcome: TurnResult & { message?: string }; messages?: Message[] };

/** `/compact`: summarizes the older part of the conversation now. */
export async function compactNow(input: CompactNowInput): Promise<CompactNowResult> {
  const { sessionId, workspace, model, config, emit, signal } = input;
  const compactor = createSessionCompactor({
    sessionId,
    workspace,
    model,
    config,
    emit,
    fixedChars: 0,
    hooks: () => input.hooks,
  });
  const result = await compactor.compact(
    [...input.history],
    "manual",
    signal,
    input.instructions ? { instructions: input.instructions } : {},
  );
  if (result.kind === "cancelled" || signal.aborted) return { outcome: { stopReason: "cancelled" } };
  if (result.kind === "compacted") {
    const message = `Compacted ${result.summarizedCount} earlier messages into a summary; the full text is in ${result.historyPath}.`;
    return { outcome: { stopReason: "end_turn", message }, messages: result.messages };
  }
  const message =
    result.kind === "failed" ? `Compaction failed: ${result.error}` : `Nothing compacted: ${result.reason}`;
  return { outcome: { stopReason: "end_turn", message } };
}
