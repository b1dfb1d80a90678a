import type { FakeApi, LooseMessage, RecordedRequest } from "./types.js";

// Reads either API's request body into one loose shape, so tests assert on meaning, not wire format.

type Wire = Record<string, any>;

export function recordRequest(api: FakeApi, path: string, headers: Record<string, string>, body: Wire): RecordedRequest {
  const { system, messages } = api === "anthropic" ? readAnthropic(body) : readOpenAi(body);
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  const toolNames = Array.isArray(body.tools)
    ? body.tools.map((tool: Wire) => String(api === "anthropic" ? tool.name : tool.function?.name))
    : [];
  return { api, path, headers, body, system, lastUserText: lastUser?.text ?? "", toolNames, messages };
}

function textOf(content: unknown): { text: string; images: number } {
  if (typeof content === "string") return { text: content, images: 0 };
  if (!Array.isArray(content)) return { text: "", images: 0 };
  const texts = content.filter((b: Wire) => b.type === "text").map((b: Wire) => String(b.text));
  const images = content.filter((b: Wire) => b.type === "image" || b.type === "image_url").length;
  return { text: texts.join("\n"), images };
}

function readAnthropic(body: Wire): { system: string; messages: LooseMessage[] } {
  const system = typeof body.system === "string" ? body.system : textOf(body.system).text;
  const messages: LooseMessage[] = [];
  for (const message of (body.messages ?? []) as Wire[]) {
    const blocks: Wire[] = typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content ?? []);
    if (message.role === "assistant") {
      const toolCalls = blocks.filter((b) => b.type === "tool_use").map((b) => ({ id: b.id, name: b.name, input: b.input }));
      messages.push({ role: "assistant", ...textOf(blocks), ...(toolCalls.length > 0 && { toolCalls }) });
      continue;
    }
    for (const result of blocks.filter((b) => b.type === "tool_result")) {
      messages.push({ role: "tool", ...textOf(result.content), toolCallId: result.tool_use_id, isError: result.is_error === true });
    }
    const rest = blocks.filter((b) => b.type !== "tool_result");
    if (rest.length > 0) messages.push({ role: "user", ...textOf(rest) });
  }
  return { system, messages };
}

function readOpenAi(body: Wire): { system: string; messages: LooseMessage[] } {
  const system: string[] = [];
  const messages: LooseMessage[] = [];
  for (const message of (body.messages ?? []) as Wire[]) {
    if (message.role === "system" || message.role === "developer") {
      system.push(textOf(message.content).text);
    } else if (message.role === "assistant") {
      const toolCalls = ((message.tool_calls ?? []) as Wire[]).map((call) => ({
        id: call.id,
        name: call.function?.name,
        input: parseArguments(call.function?.arguments),
      }));
      messages.push({ role: "assistant", ...textOf(message.content ?? ""), ...(toolCalls.length > 0 && { toolCalls }) });
    } else if (message.role === "tool") {
      messages.push({ role: "tool", ...textOf(message.content), toolCallId: message.tool_call_id });
    } else {
      messages.push({ role: "user", ...textOf(message.content) });
    }
  }
  return { system: system.join("\n"), messages };
}

function parseArguments(text: unknown): unknown {
  if (typeof text !== "string") return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
