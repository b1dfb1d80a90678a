import type { LimitHit } from "../model/limits.js";
import type { AssistantMessage, Message, ModelClient, Usage } from "../model/types.js";
import type { AnyTool } from "../tools/types.js";
import { createDeltaReader } from "./delta-reader.js";
import type { AgentEventSink } from "./events.js";
import { announceToolCall, type ToolRunEnv } from "./tool-runner.js";

// One model request of a turn, streamed: text and thinking to the editor as they come, each tool
// call announced once its arguments are complete, and what the loop needs when it ends.

/** What the request is sent with. */
export type StreamSettings = {
  system: string;
  tools: readonly AnyTool[];
  maxOutputTokens?: number;
  signal: AbortSignal;
  /** A subagent's turn: the `task` call its tool calls are shown under. */
  parentToolCallId?: string;
};

export type Streamed =
  | {
      kind: "done";
      message: AssistantMessage;
      messageId: string;
      stopReason: string;
      usage: Usage;
      toolIds: Map<string, string>;
      /** The calls (by our id) the editor was told of while the message streamed. */
      announced: Set<string>;
    }
  | { kind: "error"; message: string; messageId: string; partial?: AssistantMessage; limit?: LimitHit }
  | { kind: "aborted"; messageId: string; partial?: AssistantMessage };

export async function streamModel(
  model: ModelClient,
  messages: Message[],
  options: StreamSettings,
  env: ToolRunEnv,
  emit: AgentEventSink,
  newId: () => string,
): Promise<Streamed> {
  const messageId = newId();
  const thoughtId = newId();
  const toolIds = new Map<string, string>();
  const announced = new Set<string>();
  let text = "";
  const stream = model.stream({
    system: options.system,
    messages,
    tools: options.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.jsonSchema })),
    maxOutputTokens: options.maxOutputTokens,
    signal: options.signal,
  });
  const reader = createDeltaReader(stream);
  try {
    for (let events = await reader.next(); events; events = await reader.next()) {
      for (const event of events) {
        switch (event.type) {
          case "text_delta":
            text += event.text;
            emit({ type: "message_chunk", messageId, text: event.text });
            break;
          case "thinking_delta":
            emit({ type: "thought_chunk", messageId: thoughtId, text: event.text });
            break;
          case "tool_call_start":
            // Shown once its arguments are complete (`tool_call_ready`, or the whole message): a call
            // announced now would say only its tool's name, and some editors show nothing more.
            toolIds.set(event.id, newId());
            env.tools.get(event.name)?.warmUp?.();
            break;
          case "tool_call_ready": {
            const toolCallId = toolIds.get(event.id);
            if (toolCallId === undefined || announced.has(toolCallId)) break;
            announced.add(toolCallId);
            announceToolCall(env, toolCallId, event.name, event.input);
            break;
          }
          case "retry":
            emit({
              type: "notice",
              severity: "warning",
              title: `Model request failed (${event.reason}); retrying in ${Math.round(event.delayMs / 100) / 10}s (attempt ${event.attempt})`,
            });
            break;
          case "notice":
            emit({ type: "notice", severity: "warning", title: event.message });
            break;
          case "usage":
            break;
          case "limits":
            emit({ type: "quota", pool: event.pool });
            break;
          case "done":
            return {
              kind: "done",
              message: event.message,
              messageId,
              stopReason: event.stopReason,
              usage: event.usage,
              toolIds,
              announced,
            };
          case "error":
            return streamFailed(event, { text, messageId, announced }, options, emit);
        }
      }
    }
  } finally {
    await reader.close();
  }
  return { kind: "error", message: "the model stream ended without a result", messageId };
}

/** The request failed or was cancelled mid-stream: keep what was said; calls already shown fail. */
function streamFailed(
  event: { message: string; aborted?: boolean; limit?: LimitHit },
  so: { text: string; messageId: string; announced: ReadonlySet<string> },
  options: StreamSettings,
  emit: AgentEventSink,
): Streamed {
  const { text, messageId } = so;
  const partial: AssistantMessage | undefined = text
    ? { role: "assistant", content: [{ type: "text", text }] }
    : undefined;
  if (event.aborted || options.signal.aborted) return { kind: "aborted", messageId, partial };
  // Calls the editor already shows will never run now.
  for (const toolCallId of so.announced) {
    emit({
      type: "tool_call_update",
      toolCallId,
      status: "failed",
      content: [{ type: "text", text: "The model request failed before this call was complete." }],
      parentToolCallId: options.parentToolCallId,
    });
  }
  return { kind: "error", message: event.message, messageId, partial, ...(event.limit && { limit: event.limit }) };
}
