export * from "./events.js";
export * from "./types.js";
export { compileMatcher, matches, isWildcard, type CompiledMatcher, type MatcherCompileResult } from "./matcher.js";
export {
  loadHooksConfig,
  parseHooksConfig,
  hookLabel,
  sha256Hex,
  type HookFileInfo,
  type LoadedHooks,
  type LoadHooksOptions,
} from "./config-loader.js";
export {
  scrubHookEnv,
  isSecretEnvName,
  isHookVariable,
  buildHookEnv,
  hookVariables,
  substituteHookVariables,
} from "./env.js";
export {
  runHookCommand,
  MAX_HOOK_OUTPUT_BYTES,
  type HookCommandOptions,
  type HookCommandResult,
  type SpawnFunction,
} from "./runner.js";
export { interpretHookResult, DEFAULT_BLOCK_REASON, type HookVerdict, type InterpretContext } from "./interpret.js";
export { reduceHookVerdicts } from "./reducer.js";
export { mcpHookToolName, parseMcpHookToolName, toHookToolResponse } from "./tool-names.js";
export {
  createHookTrustStore,
  canonicalRoot,
  HOOK_TRUST_FILE,
  type HookTrustStore,
  type HookTrustStoreOptions,
  type HookTrustEntry,
} from "./trust-store.js";
export {
  resolveProjectHookTrust,
  describeProjectHooks,
  describeHooksFile,
  formatHookTrustRequest,
  type HookTrustRequest,
  type HookTrustCommand,
  type HookTrustAnswer,
  type HookTrustStatus,
  type ResolveProjectHookTrustOptions,
  type ResolvedHookTrust,
} from "./project-trust.js";
export {
  createHookEngine,
  type HookEngine,
  type HookEngineOptions,
  type HookRunOptions,
  type HookStatus,
  type HookEndStatus,
  type HookEngineDescription,
  type HookHandlerDescription,
} from "./engine.js";
export {
  createStopHookGate,
  hookFeedbackText,
  MAX_STOP_CONTINUATIONS,
  type StopHookGate,
  type StopDecision,
} from "./feedback.js";
export { formatHooksDescription } from "./format.js";
