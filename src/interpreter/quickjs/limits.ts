import type { DeepAcpConfig } from "../../config/config-file.js";

/** Limits of one interpreter; every field maps to a `[interpreter]` key in config.toml. */
export type InterpreterLimits = {
  /** Hard cap on the interpreter's WASM memory (`memory_limit_mb`). Default 64 MiB; at least 16 MiB. */
  memoryLimitBytes: number;
  /** QuickJS stack limit (`max_stack_kb`). Default 256 KiB; clamped to 16 KiB..1 MiB. */
  maxStackBytes: number;
  /**
   * Time one `eval` may run or wait on its own promises and timers (`timeout_ms`). Default 5000.
   * Time spent waiting for tool calls and subagents is not counted: they have their own limits
   * and the turn's cancel stops them.
   */
  timeoutMs: number;
  /** Characters of output returned to the model (`max_output_chars`). Default 4000. */
  maxOutputChars: number;
  /** Tool calls (`tools.*` and `task()`) per eval (`max_tool_calls`). Default 256. */
  maxToolCalls: number;
  /** Whether `Date.now()` and `new Date()` read the real clock (`allow_clock`). Default false. */
  allowClock: boolean;
  /** Subagents that run at once from `task()`. Default 32. */
  maxSubagentConcurrency: number;
};

const MIB = 1024 * 1024;
/** The QuickJS WASM build declares a 256-page (16 MiB) initial memory; less cannot instantiate. */
export const MIN_MEMORY_BYTES = 16 * MIB;
/** The emscripten build caps its memory at 32768 pages. */
const MAX_MEMORY_BYTES = 2048 * MIB;
const MIN_STACK_BYTES = 16 * 1024;
// Past ~256 KiB deep guest recursion can exhaust Node's own stack before QuickJS notices; the
// sandbox survives that (the interpreter is reset), but more than 1 MiB buys nothing.
const MAX_STACK_BYTES = 1024 * 1024;

export const DEFAULT_INTERPRETER_LIMITS: Readonly<InterpreterLimits> = Object.freeze({
  memoryLimitBytes: 64 * MIB,
  maxStackBytes: 256 * 1024,
  timeoutMs: 5000,
  maxOutputChars: 4000,
  maxToolCalls: 256,
  allowClock: false,
  maxSubagentConcurrency: 32,
});

/** Fills defaults and clamps values the engine cannot honour. */
export function resolveLimits(partial: Partial<InterpreterLimits> = {}): InterpreterLimits {
  const merged = { ...DEFAULT_INTERPRETER_LIMITS, ...partial };
  return {
    memoryLimitBytes: clamp(Math.floor(merged.memoryLimitBytes), MIN_MEMORY_BYTES, MAX_MEMORY_BYTES),
    maxStackBytes: clamp(Math.floor(merged.maxStackBytes), MIN_STACK_BYTES, MAX_STACK_BYTES),
    timeoutMs: Math.max(1, Math.floor(merged.timeoutMs)),
    maxOutputChars: Math.max(100, Math.floor(merged.maxOutputChars)),
    maxToolCalls: Math.max(1, Math.floor(merged.maxToolCalls)),
    allowClock: merged.allowClock,
    maxSubagentConcurrency: Math.max(1, Math.floor(merged.maxSubagentConcurrency)),
  };
}

export function limitsFromConfig(section: DeepAcpConfig["interpreter"]): InterpreterLimits {
  return resolveLimits({
    memoryLimitBytes: section.memory_limit_mb * MIB,
    maxStackBytes: section.max_stack_kb * 1024,
    timeoutMs: section.timeout_ms,
    maxOutputChars: section.max_output_chars,
    maxToolCalls: section.max_tool_calls,
    allowClock: section.allow_clock,
  });
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
