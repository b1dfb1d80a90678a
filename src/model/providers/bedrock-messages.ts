import { toolInputObject } from "../wire/tool-input.js";
import type { Message, ModelToolSpec, UserContent } from "../types.js";

// Our conversation → Bedrock Converse `messages`, `system` and `toolConfig` (plain objects in the
// shapes the AWS SDK's ConverseStreamCommand takes).

type Block = Record<string, unknown>;
export type ConverseMessage = { role: "user" | "assistant"; content: Block[] };

const IMAGE_FORMATS: Record<string, string> = {
  "image/png": "png",
  "image/jpeg": "jpeg",
  "image/jpg": "jpeg",
  "image/gif": "gif",
  "image/webp": "webp",
};

export function toConverseMessages(messages: Message[]): ConverseMessage[] {
  const out: ConverseMessage[] = [];
  const push = (role: ConverseMessage["role"], content: Block[]) => {
    if (content.length === 0) return;
    const previous = out[out.length - 1];
    // Tool results of one turn share a user message; Converse requires strict alternation.
    if (previous && previous.role === role) previous.content.push(...content);
    else out.push({ role, content });
  };
  for (const message of messages) {
    switch (message.role) {
      case "user":
        push("user", message.content.flatMap(userBlock));
        break;
      case "assistant": {
        const content: Block[] = [];
        for (const part of message.content) {
          if (part.type === "text" && part.text !== "") content.push({ text: part.text });
          else if (part.type === "thinking" && part.redacted !== undefined)
            content.push({ reasoningContent: { redactedContent: Buffer.from(part.redacted, "base64") } });
          // Unsigned thinking (another provider's) would be rejected by Claude.
          else if (part.type === "thinking" && part.signature)
            content.push({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } });
          else if (part.type === "tool_call") {
            content.push({ toolUse: { toolUseId: part.id, name: part.name, input: toolInputObject(part.input) } });
          }
        }
        push("assistant", content);
        break;
      }
      case "tool": {
        const content = message.content.flatMap(userBlock);
        push("user", [
          {
            toolResult: {
              toolUseId: message.toolCallId,
              content: content.length > 0 ? content : [{ text: "" }],
              status: message.isError ? "error" : "success",
            },
          },
        ]);
        break;
      }
    }
  }
  return out;
}

function userBlock(part: UserContent): Block[] {
  if (part.type === "text") return part.text === "" ? [] : [{ text: part.text }];
  const format = IMAGE_FORMATS[part.mimeType.toLowerCase()];
  if (!format)
    return [{ text: `(an image of type ${part.mimeType} was left out: Bedrock takes png, jpeg, gif and webp)` }];
  return [{ image: { format, source: { bytes: Buffer.from(part.data, "base64") } } }];
}

export function toConverseTools(tools: ModelToolSpec[]): Block[] {
  return tools.map((tool) => ({
    toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.inputSchema } },
  }));
}

/** Claude on Bedrock caches at cachePoint blocks: after the system prompt and tools, and after the last message. */
export function addCachePoints(system: Block[], tools: Block[], messages: ConverseMessage[]): void {
  const point = { cachePoint: { type: "default" } };
  if (system.length > 0) system.push({ ...point });
  if (tools.length > 0) tools.push({ ...point });
  const last = messages[messages.length - 1];
  const lastBlock = last?.content[last.content.length - 1];
  if (last && lastBlock && !("reasoningContent" in lastBlock)) last.content.push({ ...point });
}
