import type { SubagentRequest, ToolResult } from "../../tools/types.js";
import type { EngineHost } from "../quickjs/eval-run.js";
import type { InterpreterLimits } from "../quickjs/limits.js";
import { flattenToolResult, resultText, ToolCallBudget, type ToolBinding, validateToolInput } from "./ptc.js";
import { ConcurrencyLimiter, parseTaskRequest } from "./subagents.js";

/** What one eval may reach on the host: the calling tool's context, narrowed. */
export type EvalIO = {
  /** The turn's signal: aborting it interrupts the script and abandons its pending calls. */
  signal: AbortSignal;
  /** Runs a tool through the agent's pipeline (approvals, file rules, hooks, editor events). */
  callTool?: (name: string, input: unknown) => Promise<ToolResult>;
  runSubagent?: (request: SubagentRequest) => Promise<ToolResult>;
};

export type HostCalls = EngineHost & {
  /** Tool and task() calls made so far (capped at the budget). */
  readonly toolCalls: number;
  /** Drops queued task() calls; called when the eval ends. */
  close(): void;
};

/**
 * The host side of one eval's tool calls: budget, schema validation, the call through the agent's
 * pipeline, flattening the result to text, and the task() concurrency limit. Runs on the main
 * thread, where the tools and the ToolContext live.
 */
export function createHostCalls(options: {
  bindings: ReadonlyMap<string, ToolBinding>;
  io: EvalIO;
  limits: InterpreterLimits;
}): HostCalls {
  const { bindings, io, limits } = options;
  const budget = new ToolCallBudget(limits.maxToolCalls);
  const subagents = new ConcurrencyLimiter(limits.maxSubagentConcurrency);

  return {
    get toolCalls() {
      return budget.count;
    },

    async callTool(callName, inputJson) {
      const binding = bindings.get(callName);
      if (!binding) throw new Error(`tools.${callName} is not available`);
      budget.take(callName);
      const input = validateToolInput(binding, inputJson);
      const toolName = binding.tool.name;
      if (!io.callTool) throw new Error(`Tool '${toolName}' failed: tools cannot be called from code in this context`);
      let result: ToolResult;
      try {
        result = await io.callTool(toolName, input);
      } catch (error) {
        throw new Error(`Tool '${toolName}' failed: ${messageOf(error)}`);
      }
      if (result.isError) throw new Error(`Tool '${toolName}' failed: ${resultText(result)}`);
      return flattenToolResult(toolName, result);
    },

    async runTask(requestJson) {
      const request = parseTaskRequest(requestJson);
      budget.take("task");
      const runSubagent = io.runSubagent;
      if (!runSubagent) throw new Error("task() failed: subagents are not available in this context");
      let result: ToolResult;
      try {
        result = await subagents.run(() => runSubagent(request));
      } catch (error) {
        throw new Error(`task() failed: ${messageOf(error)}`);
      }
      if (result.isError) throw new Error(`task() failed: ${resultText(result)}`);
      return resultText(result);
    },

    isCancelled: () => io.signal.aborted,

    onCancel(listener) {
      io.signal.addEventListener("abort", listener, { once: true });
      return () => io.signal.removeEventListener("abort", listener);
    },

    close() {
      subagents.close("the eval that started this task() has ended");
    },
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
