import type { SandboxBackendProtocol } from "../backends/protocol.js";
import type { ToolResultMessage, UserContent } from "../model/types.js";
import type { AnyTool, ToolContext, ToolDisplay, ToolResult } from "../tools/types.js";
import type { GateReports } from "../gate/call/procedure.js";
import type { AgentEventSink, TurnEventSink } from "./events.js";

// How a tool call shows up: the editor events it emits while running and the result message the model gets.
// Kept apart from tool-runner.ts, which decides the order of a call (present, gate, execute, hooks).

/** What these helpers need of a run's environment (a ToolRunEnv is one). */
type ToolEventTarget = { emit: AgentEventSink; parentToolCallId?: string };

export type ToolCallRequest = { toolCallId: string; name: string; input: unknown; modelCallId: string };

export type ToolRunOutcome = { message: ToolResultMessage; result: ToolResult; cancelled: boolean };

export function liveTerminalFor(
  tool: AnyTool | undefined,
  executor: SandboxBackendProtocol | undefined,
  toolCallId: string,
  cwd: string,
) {
  if (!tool?.streamsOutput || !executor || executor.outputMode === "editor-terminal") return undefined;
  return { terminalId: toolCallId, cwd };
}

export function progressSink(env: ToolEventTarget, toolCallId: string): ToolContext["progress"] {
  return (event) => {
    switch (event.type) {
      case "output":
        env.emit({
          type: "tool_output",
          toolCallId,
          terminalId: toolCallId,
          data: event.data,
          parentToolCallId: env.parentToolCallId,
        });
        return;
      case "terminal":
        env.emit({
          type: "tool_call_update",
          toolCallId,
          content: [{ type: "terminal", terminalId: event.terminalId }],
          parentToolCallId: env.parentToolCallId,
        });
        return;
      case "plan":
        env.emit({ type: "plan", entries: event.entries });
        return;
    }
  };
}

export function emitSystemMessages(env: ToolEventTarget, messages: readonly string[] | undefined): void {
  for (const message of messages ?? []) env.emit({ type: "notice", severity: "info", title: message });
}

/** What the gate says on the way: hooks' system messages as notices, a user's rejection as the call's end. */
export function gateReports(emit: TurnEventSink): GateReports {
  return {
    asking: (message) => emit({ type: "notification", kind: "permission_prompt", message }),
    systemMessages: (messages) => emitSystemMessages({ emit }, messages),
    warning: (message) => emit({ type: "notice", severity: "warning", title: message }),
    rejected: (request, text) =>
      emit({
        type: "tool_call_update",
        toolCallId: request.call.toolCallId,
        status: "failed",
        content: [{ type: "text", text }],
        parentToolCallId: request.parentToolCallId,
      }),
  };
}

export function outcome(request: ToolCallRequest, result: ToolResult, wasCancelled: boolean): ToolRunOutcome {
  const message: ToolResultMessage = {
    role: "tool",
    toolCallId: request.modelCallId,
    toolName: request.name,
    content: result.content,
    isError: result.isError === true,
  };
  return { message, result, cancelled: wasCancelled };
}

export function toDisplay(content: readonly UserContent[]): ToolDisplay[] {
  return content.map((part) =>
    part.type === "text"
      ? { type: "text", text: part.text }
      : { type: "image", mimeType: part.mimeType, data: part.data },
  );
}

/** Providers keep unparsable argument JSON as `{__raw}`; show the model what it sent. */
export function unwrapRawInput(input: unknown): unknown {
  if (input && typeof input === "object" && "__raw" in input) {
    return { __invalid_json: (input as { __raw: unknown }).__raw };
  }
  return input;
}
