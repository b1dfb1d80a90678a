import type { FakeApi, LooseMessage, RecordedRequest } from "./types.js";

// Reads either API's request body into one loose shape, so tests assert on meaning, not wire format.

type Wire = Record<string, any>;

export function recordRequest(
  api: FakeApi,
  path: string,
  query: string,
  headers: Record<string, string>,
  body: Wire,
): RecordedRequest {
  const { system, messages, toolNames } = READERS[api](body);
  const lastUser = [...messages].reverse().find((m) => m.role === "user");
  return { api, path, query, headers, body, system, lastUserText: lastUser?.text ?? "", toolNames, messages };
}

type Read = { system: string; messages: LooseMessage[]; toolNames: string[] };

const READERS: Record<FakeApi, (body: Wire) => Read> = {
  anthropic: (body) => ({
    ...readAnthropic(body),
    toolNames: (body.tools ?? []).map((tool: Wire) => String(tool.name)),
  }),
  openai: (body) => ({
    ...readOpenAi(body),
    toolNames: (body.tools ?? []).map((tool: Wire) => String(tool.function?.name)),
  }),
  gemini: readGemini,
  responses: readResponses,
  bedrock: readBedrock,
};

function readGemini(body: Wire): Read {
  const messages: LooseMessage[] = [];
  for (const content of (body.contents ?? []) as Wire[]) {
    const parts: Wire[] = content.parts ?? [];
    const text = parts
      .filter((p) => typeof p.text === "string" && !p.thought)
      .map((p) => String(p.text))
      .join("\n");
    const images = parts.filter((p) => p.inlineData).length;
    if (content.role === "model") {
      const toolCalls = parts
        .filter((p) => p.functionCall)
        .map((p) => ({ id: String(p.thoughtSignature ?? ""), name: p.functionCall.name, input: p.functionCall.args }));
      messages.push({ role: "assistant", text, images, ...(toolCalls.length > 0 && { toolCalls }) });
      continue;
    }
    for (const result of parts.filter((p) => p.functionResponse)) {
      const response: Wire = result.functionResponse.response ?? {};
      messages.push({
        role: "tool",
        text: String(response.content ?? response.error ?? ""),
        images: 0,
        toolCallId: result.functionResponse.name,
        isError: response.error !== undefined,
      });
    }
    if (parts.some((p) => !p.functionResponse)) messages.push({ role: "user", text, images });
  }
  const system = ((body.systemInstruction?.parts ?? []) as Wire[]).map((p) => String(p.text ?? "")).join("\n");
  const toolNames = ((body.tools ?? []) as Wire[]).flatMap((tool) =>
    (tool.functionDeclarations ?? []).map((d: Wire) => String(d.name)),
  );
  return { system, messages, toolNames };
}

function readResponses(body: Wire): Read {
  const messages: LooseMessage[] = [];
  for (const item of (body.input ?? []) as Wire[]) {
    if (item.type === "function_call") {
      const last = messages[messages.length - 1];
      const call = { id: item.call_id, name: item.name, input: parseArguments(item.arguments) };
      if (last?.role === "assistant") (last.toolCalls ??= []).push(call);
      else messages.push({ role: "assistant", text: "", images: 0, toolCalls: [call] });
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", text: String(item.output ?? ""), images: 0, toolCallId: item.call_id });
    } else if (item.type === "reasoning") {
      messages.push({ role: "assistant", text: "", images: 0 });
    } else if (item.role) {
      const content: Wire[] =
        typeof item.content === "string" ? [{ type: "input_text", text: item.content }] : (item.content ?? []);
      const text = content
        .filter((c) => c.type === "input_text" || c.type === "output_text")
        .map((c) => String(c.text))
        .join("\n");
      const images = content.filter((c) => c.type === "input_image").length;
      messages.push({
        role: item.role === "assistant" ? "assistant" : item.role === "user" ? "user" : "system",
        text,
        images,
      });
    }
  }
  return {
    system: String(body.instructions ?? ""),
    messages: messages.filter((m) => m.role !== "system"),
    toolNames: ((body.tools ?? []) as Wire[]).map((t) => String(t.name)),
  };
}

function readBedrock(body: Wire): Read {
  const messages: LooseMessage[] = [];
  for (const message of (body.messages ?? []) as Wire[]) {
    const blocks: Wire[] = message.content ?? [];
    const text = blocks
      .filter((b) => typeof b.text === "string")
      .map((b) => String(b.text))
      .join("\n");
    const images = blocks.filter((b) => b.image).length;
    if (message.role === "assistant") {
      const toolCalls = blocks
        .filter((b) => b.toolUse)
        .map((b) => ({ id: b.toolUse.toolUseId, name: b.toolUse.name, input: b.toolUse.input }));
      messages.push({ role: "assistant", text, images, ...(toolCalls.length > 0 && { toolCalls }) });
      continue;
    }
    for (const result of blocks.filter((b) => b.toolResult)) {
      const content: Wire[] = result.toolResult.content ?? [];
      messages.push({
        role: "tool",
        text: content
          .filter((c) => typeof c.text === "string")
          .map((c) => String(c.text))
          .join("\n"),
        images: content.filter((c) => c.image).length,
        toolCallId: result.toolResult.toolUseId,
        isError: result.toolResult.status === "error",
      });
    }
    if (blocks.some((b) => !b.toolResult && !b.cachePoint)) messages.push({ role: "user", text, images });
  }
  const system = ((body.system ?? []) as Wire[])
    .filter((b) => typeof b.text === "string")
    .map((b) => String(b.text))
    .join("\n");
  const toolNames = ((body.toolConfig?.tools ?? []) as Wire[])
    .filter((t) => t.toolSpec)
    .map((t) => String(t.toolSpec.name));
  return { system, messages, toolNames };
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
    const blocks: Wire[] =
      typeof message.content === "string" ? [{ type: "text", text: message.content }] : (message.content ?? []);
    if (message.role === "assistant") {
      const toolCalls = blocks
        .filter((b) => b.type === "tool_use")
        .map((b) => ({ id: b.id, name: b.name, input: b.input }));
      messages.push({ role: "assistant", ...textOf(blocks), ...(toolCalls.length > 0 && { toolCalls }) });
      continue;
    }
    for (const result of blocks.filter((b) => b.type === "tool_result")) {
      messages.push({
        role: "tool",
        ...textOf(result.content),
        toolCallId: result.tool_use_id,
        isError: result.is_error === true,
      });
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
      messages.push({
        role: "assistant",
        ...textOf(message.content ?? ""),
        ...(toolCalls.length > 0 && { toolCalls }),
      });
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
