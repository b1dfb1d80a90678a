// Public surface of the interpreter. Importing this module loads neither QuickJS nor sucrase:
// both are imported dynamically by the first eval.

export { createEvalTool, type EvalToolOptions } from "./eval-tool.js";
export { interpreterPromptSection } from "./prompt.js";
export { resolveInterpreterTools } from "./allowlist.js";
export {
  DEFAULT_INTERPRETER_LIMITS,
  limitsFromConfig,
  resolveLimits,
  type InterpreterLimits,
} from "./quickjs/limits.js";
export { createInterpreterSession, type EvalOutcome, type InterpreterSession } from "./session.js";
export { warmUp } from "./quickjs/warm-up.js";
export {
  createSandbox,
  type EngineOutcome,
  type Sandbox,
  type SandboxFactory,
  type SandboxOptions,
} from "./quickjs/sandbox.js";
export { createWorkerSandboxFactory, type WorkerSandboxFactory } from "./worker/worker-client.js";
export type { EvalIO } from "./calls/host-calls.js";
export type { EngineHost } from "./quickjs/eval-run.js";
export { loadQuickJS } from "./quickjs/quickjs-loader.js";
export { preloadTransform } from "./quickjs/transform.js";
export { effectiveAllowlist, toCamelCase } from "./calls/ptc.js";
export { schemaToTypeScript, toolSignature } from "./calls/signatures.js";
