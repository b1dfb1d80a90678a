export * from "./events.js";
export * from "./types.js";
export { compileMatcher, matches, isWildcard, type CompiledMatcher } from "./matcher.js";
export { loadHooksConfig, hookLabel, sha256Hex, type HookFileInfo, type LoadedHooks } from "./config-loader.js";
export { scrubHookEnv, isSecretEnvName, buildHookEnv, hookVariables, substituteHookVariables } from "./env.js";
export { runHookCommand, type HookCommandResult, type SpawnFunction } from "./runner.js";
export { interpretHookResult, DEFAULT_BLOCK_REASON, type HookVerdict } from "./interpret.js";
export { reduceHookVerdicts } from "./reducer.js";
export { mcpHookToolName, parseMcpHookToolName, toHookToolResponse } from "./tool-names.js";
export { createHookTrustStore, type HookTrustStore } from "./trust-store.js";
export {
  resolveProjectHookTrust,
  describeProjectHooks,
  formatHookTrustRequest,
  type HookTrustRequest,
  type HookTrustAnswer,
} from "./project-trust.js";
export {
  createHookEngine,
  type HookEngine,
  type HookEngineOptions,
  type HookStatus,
  type HookEndStatus,
  type HookEngineDescription,
} from "./engine.js";
export { createStopHookGate, hookFeedbackText, MAX_STOP_CONTINUATIONS } from "./feedback.js";
export { formatHooksDescription } from "./format.js";
