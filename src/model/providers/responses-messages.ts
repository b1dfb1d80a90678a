import { toolArguments, toolText } from "../wire/tool-input.js";
import type { ImagePart, Message, ModelToolSpec, UserContent } from "../types.js";

// Our conversation → OpenAI Responses API `input` items and `tools`.

export type ResponsesItem = Record<string, unknown>;

export function toResponsesInput(messages: Message[]): ResponsesItem[] {
  const out: ResponsesItem[] = [];
  // Images returned by tools follow the tool outputs as a user message, as with Chat Completions.
  let pendingImages: ResponsesItem[] = [];
  const flushImages = () => {
    out.push(...pendingImages);
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== "tool") flushImages();
    switch (message.role) {
      case "user":
        if (message.content.length > 0) out.push({ role: "user", content: message.content.map(userPart) });
        break;
      case "assistant":
        for (const part of message.content) {
          if (part.type === "thinking" && part.encrypted) {
            // Reasoning goes back as the encrypted item it came as (store: false keeps nothing server-side).
            out.push({
              type: "reasoning",
              id: part.encrypted.id,
              encrypted_content: part.encrypted.content,
              summary: part.text ? [{ type: "summary_text", text: part.text }] : [],
            });
          } else if (part.type === "text" && part.text !== "") {
            out.push({ role: "assistant", content: [{ type: "output_text", text: part.text }] });
          } else if (part.type === "tool_call") {
            out.push({
              type: "function_call",
              call_id: part.id,
              name: part.name,
              arguments: toolArguments(part.input),
            });
          }
        }
        break;
      case "tool": {
        const images = message.content.filter((part): part is ImagePart => part.type === "image");
        out.push({ type: "function_call_output", call_id: message.toolCallId, output: toolText(message) });
        if (images.length > 0) {
          pendingImages.push({
            role: "user",
            content: [
              {
                type: "input_text",
                text: `Images returned by the ${message.toolName} tool (call ${message.toolCallId}):`,
              },
              ...images.map(userPart),
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

function userPart(part: UserContent): ResponsesItem {
  return part.type === "text"
    ? { type: "input_text", text: part.text }
    : { type: "input_image", image_url: `data:${part.mimeType};base64,${part.data}` };
}

export function toResponsesTools(tools: ModelToolSpec[]): ResponsesItem[] {
  // strict: false, because our schemas have optional properties that strict mode would reject.
  return tools.map((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.inputSchema,
    strict: false,
  }));
}
