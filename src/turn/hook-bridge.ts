import type { AgentHooks } from "../agent/hooks.js";
import {
  DEFAULT_BLOCK_REASON,
  createStopHookGate,
  hookFeedbackText,
  toHookToolResponse,
  type HookEngine,
  type ReducedHookResult,
} from "../hooks/index.js";
import type { AnyTool, ToolResult } from "../tools/types.js";

/** Claude-compatible `tool_input` for a call: the tool's own mapping, else its input as given. */
export function hookToolInput(tool: AnyTool, input: unknown): Record<string, unknown> {
  if (tool.hookInput) return tool.hookInput(input);
  return typeof input === "object" && input !== null && !Array.isArray(input)
    ? { ...(input as Record<string, unknown>) }
    : {};
}

function notices(result: ReducedHookResult): string[] {
  const warnings = result.diagnostics
    .filter((d) => d.severity === "error" || d.severity === "warning")
    .map((d) => `Hook ${d.event ?? ""}: ${d.message}`.trim());
  return [...result.systemMessages, ...warnings];
}

/**
 * The agent's lifecycle seams, answered by the hooks engine. `engine()` is read at each call because
 * trusting project hooks mid-session swaps the engine. `agent` marks the calls of a subagent.
 */
export function createHookBridge(engine: () => HookEngine, agent?: { id: string; type: string }): AgentHooks {
  const extra = agent ? { agent_id: agent.id, agent_type: agent.type } : {};
  // One bridge per turn, so the Stop-hook continuation cap counts this turn's continuations.
  const stopGate = createStopHookGate();
  return {
    async preToolUse({ toolCallId, tool, input }, signal) {
      const hooks = engine();
      if (!hooks.hasHandlers("PreToolUse", tool.hookName)) return {};
      const result = await hooks.run(
        "PreToolUse",
        {
          tool_name: tool.hookName,
          tool_input: hookToolInput(tool, input) as never,
          tool_use_id: toolCallId,
          ...extra,
        },
        { signal },
      );
      const denied = result.blocked || result.permissionDecision === "deny";
      return {
        ...(denied
          ? { decision: "deny" as const, reason: result.reason ?? DEFAULT_BLOCK_REASON }
          : result.permissionDecision
            ? { decision: result.permissionDecision, ...(result.reason ? { reason: result.reason } : {}) }
            : {}),
        context: result.additionalContext,
        systemMessages: notices(result),
      };
    },
    async permissionRequest({ tool, input }, signal) {
      const hooks = engine();
      if (!hooks.hasHandlers("PermissionRequest", tool.hookName)) return {};
      const result = await hooks.run(
        "PermissionRequest",
        {
          tool_name: tool.hookName,
          tool_input: hookToolInput(tool, input) as never,
          permission_suggestions: [],
          ...extra,
        },
        { signal },
      );
      const decision = result.permissionRequestDecision?.behavior ?? (result.blocked ? "deny" : undefined);
      return {
        ...(decision ? { decision } : {}),
        ...(result.permissionRequestDecision?.message || result.reason
          ? { message: result.permissionRequestDecision?.message ?? result.reason }
          : {}),
        systemMessages: notices(result),
      };
    },
    async postToolUse({ toolCallId, tool, input }, result: ToolResult, failed, signal) {
      const hooks = engine();
      const event = failed ? "PostToolUseFailure" : "PostToolUse";
      if (!hooks.hasHandlers(event, tool.hookName)) return {};
      const toolInput = hookToolInput(tool, input) as never;
      const reduced = failed
        ? await hooks.run(
            "PostToolUseFailure",
            {
              tool_name: tool.hookName,
              tool_input: toolInput,
              tool_use_id: toolCallId,
              error: textOf(result),
              is_interrupt: signal.aborted,
              ...extra,
            },
            { signal },
          )
        : await hooks.run(
            "PostToolUse",
            {
              tool_name: tool.hookName,
              tool_input: toolInput,
              tool_use_id: toolCallId,
              tool_response: toHookToolResponse(result, tool.name),
              ...extra,
            },
            { signal },
          );
      const feedback = hookFeedbackText(reduced);
      return { ...(feedback ? { context: [feedback] } : {}), systemMessages: notices(reduced) };
    },
    async stop({ lastAssistantText }, signal) {
      const hooks = engine();
      if (agent || !hooks.hasHandlers("Stop")) return {};
      const result = await hooks.run(
        "Stop",
        { stop_hook_active: stopGate.active, last_assistant_message: lastAssistantText },
        { signal },
      );
      const decision = stopGate.decide(result);
      if (decision.action === "continue") return { continueWith: decision.message, systemMessages: notices(result) };
      return {
        systemMessages: notices(result),
        ...(decision.diagnostic ? { warning: decision.diagnostic.message } : {}),
      };
    },
  };
}

function textOf(result: ToolResult): string {
  return result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}
