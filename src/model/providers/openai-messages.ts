import { toolArguments, toolText } from "../wire/tool-input.js";
import type { ImagePart, Message, ModelToolSpec, UserContent } from "../types.js";

// Our conversation → Chat Completions `messages` and `tools`.

export type ChatContentPart = { type: "text"; text: string } | { type: "image_url"; image_url: { url: string } };
export type ChatToolCall = { id: string; type: "function"; function: { name: string; arguments: string } };
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | ChatContentPart[] }
  | { role: "assistant"; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export function toChatMessages(system: string, messages: Message[]): ChatMessage[] {
  const out: ChatMessage[] = system ? [{ role: "system", content: system }] : [];
  // Images returned by tools cannot go in a tool message; they follow the run of tool messages,
  // because nothing may sit between an assistant's tool calls and their results.
  let pendingImages: ChatMessage[] = [];
  const flushImages = () => {
    out.push(...pendingImages);
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    switch (message.role) {
      case "user":
        if (message.content.length > 0) out.push({ role: "user", content: userContent(message.content) });
        break;
      case "assistant": {
        const text = message.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("");
        const toolCalls = message.content.flatMap((part): ChatToolCall[] =>
          part.type === "tool_call"
            ? [{ id: part.id, type: "function", function: { name: part.name, arguments: toolArguments(part.input) } }]
            : [],
        );
        if (text === "" && toolCalls.length === 0) break;
        out.push(
          toolCalls.length > 0
            ? { role: "assistant", content: text || null, tool_calls: toolCalls }
            : { role: "assistant", content: text },
        );
        break;
      }
      case "tool": {
        out.push({ role: "tool", tool_call_id: message.toolCallId, content: toolText(message) });
        const images = message.content.filter((part): part is ImagePart => part.type === "image");
        if (images.length > 0) {
          pendingImages.push({
            role: "user",
            content: [
              { type: "text", text: `Images returned by the ${message.toolName} tool (call ${message.toolCallId}):` },
              ...images.map(imagePart),
            ],
          });
        }
        break;
      }
    }
  }
  flushImages();
  return out;
}

function userContent(content: UserContent[]): string | ChatContentPart[] {
  // Plain strings are the most widely supported form among compatible servers.
  if (content.every((part) => part.type === "text"))
    return content.map((part) => (part as { text: string }).text).join("\n");
  return content.map((part) => (part.type === "text" ? { type: "text", text: part.text } : imagePart(part)));
}

function imagePart(part: ImagePart): ChatContentPart {
  return { type: "image_url", image_url: { url: `data:${part.mimeType};base64,${part.data}` } };
}

export function toChatTools(tools: ModelToolSpec[]) {
  return tools.map((tool) => ({
    type: "function" as const,
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}
