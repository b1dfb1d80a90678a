// The turn room's public entry: assemble a turn's prompt and tools, resolve the user's prompt,
// compaction, tool-result offload, the hook bridge and subagent runs around the agent loop.
export { renderContextReport } from "./context-report.js";
export { assembleTurn, type AssembledTurn, type SessionView, type TurnAssemblyInput } from "./assembly.js";
export { createSessionCompactor, type SessionCompactorOptions } from "./compaction/setup.js";
export { createResultOffloader, type FinalizeResult } from "./compaction/offload.js";
export { createHookBridge, hookToolInput } from "./hook-bridge.js";
export { blockPlan, promptText, resolvePrompt, type BlockPlan } from "./prompt.js";
export { createSubagentRunner, type SubagentRunnerOptions } from "./subagent-runner.js";
export {
  runPromptTurn,
  type PromptTurnInput,
  type PromptTurnOutcome,
  type SteeringInbox,
  type SteeringOutcome,
  type TurnGate,
  type TurnRecord,
} from "./run.js";
export { compactNow, type CompactNowInput, type CompactNowResult } from "./compaction/compact-now.js";
export { createSessionStart, titleFrom, type SessionStart, type SessionStartSource } from "./session-start.js";
export type { ClientSystemPrompt } from "./system-prompt.js";
