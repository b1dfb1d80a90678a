// The turn room's public entry: assemble a turn's prompt and tools, resolve the user's prompt,
// compaction, tool-result offload, the hook bridge and subagent runs around the agent loop.
export { renderContextReport } from "./context-report.js";
export { assembleTurn, type AssembledTurn } from "./assembly.js";
export { createSessionCompactor } from "./compaction/setup.js";
export { createResultOffloader } from "./compaction/offload.js";
export { createHookBridge } from "./hook-bridge.js";
export { blockPlan, promptText, resolvePrompt, type BlockPlan } from "./prompt.js";
export { createSubagentRunner } from "./subagent-runner.js";
export { runPromptTurn } from "./run.js";
export type { SessionView, SteeringInbox, SteeringOutcome, TurnContext, TurnGate } from "./context.js";
export { compactNow } from "./compaction/compact-now.js";
export { createSessionStart, titleFrom, type SessionStart } from "./session-start.js";
export type { ClientSystemPrompt } from "./system-prompt.js";
export type { TurnPeers } from "./peer-runner.js";
