import { toolInputObject } from "../wire/tool-input.js";
import type { AssistantContent, Message, ModelToolSpec, UserContent } from "../types.js";

// Our conversation → Anthropic Messages API request fields.

type CacheControl = { type: "ephemeral" };
export type AnthropicBlock = Record<string, unknown> & { type: string; cache_control?: CacheControl };
export type AnthropicMessage = { role: "user" | "assistant"; content: AnthropicBlock[] };

export function toAnthropicMessages(messages: Message[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  for (const message of messages) {
    const wire = toWire(message);
    if (wire.content.length === 0) continue;
    const previous = out[out.length - 1];
    // Tool results of one turn share a user message, and text the user sent after them joins it
    // (tool_result blocks stay first, as the API requires).
    if (previous && previous.role === wire.role) previous.content.push(...wire.content);
    else out.push(wire);
  }
  return out;
}

function toWire(message: Message): AnthropicMessage {
  switch (message.role) {
    case "user":
      return { role: "user", content: message.content.flatMap(userBlock) };
    case "assistant":
      return { role: "assistant", content: message.content.flatMap(assistantBlock) };
    case "tool": {
      const content = message.content.flatMap(userBlock);
      const block: AnthropicBlock = { type: "tool_result", tool_use_id: message.toolCallId };
      if (content.length > 0) block.content = content;
      if (message.isError) block.is_error = true;
      return { role: "user", content: [block] };
    }
  }
}

function userBlock(part: UserContent): AnthropicBlock[] {
  if (part.type === "text") return part.text === "" ? [] : [{ type: "text", text: part.text }];
  return [{ type: "image", source: { type: "base64", media_type: part.mimeType, data: part.data } }];
}

function assistantBlock(part: AssistantContent): AnthropicBlock[] {
  switch (part.type) {
    case "text":
      return part.text === "" ? [] : [{ type: "text", text: part.text }];
    case "thinking":
      if (part.redacted !== undefined) return [{ type: "redacted_thinking", data: part.redacted }];
      // Unsigned thinking (another provider's, or an interrupted block) would be rejected.
      return part.signature ? [{ type: "thinking", thinking: part.text, signature: part.signature }] : [];
    case "tool_call":
      return [{ type: "tool_use", id: part.id, name: part.name, input: toolInputObject(part.input) }];
  }
}

export function toAnthropicTools(tools: ModelToolSpec[]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema,
  }));
}

/**
 * Prompt-caching breakpoints: after the system prompt (which also covers the tools before it) and
 * after the last message, so each request reads the previous request's prefix from cache.
 */
export function addCacheBreakpoints(system: AnthropicBlock[], messages: AnthropicMessage[]): void {
  const lastSystem = system[system.length - 1];
  if (lastSystem) lastSystem.cache_control = { type: "ephemeral" };
  const lastMessage = messages[messages.length - 1];
  const lastBlock = lastMessage?.content[lastMessage.content.length - 1];
  if (lastBlock && lastBlock.type !== "thinking" && lastBlock.type !== "redacted_thinking") {
    lastBlock.cache_control = { type: "ephemeral" };
  }
}
