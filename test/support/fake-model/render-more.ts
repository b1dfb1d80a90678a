import { EventStreamCodec } from "@smithy/eventstream-codec";
import { fromUtf8, toUtf8 } from "@smithy/util-utf8";
import { chunkWords, fakeSignature, jsonFragments, usageOf, type RenderContext, type Rendered } from "./render.js";
import type { FakeTurn } from "./types.js";

// The Gemini, Responses API and Bedrock ConverseStream renderings of a FakeTurn, in each API's own
// event shapes and framing.

function sse(event: string | undefined, data: unknown): string {
  return `${event ? `event: ${event}\n` : ""}data: ${JSON.stringify(data)}\n\n`;
}

function defaultStop(turn: FakeTurn): string {
  return turn.stopReason ?? (turn.parts.some((p) => p.type === "tool_call") ? "tool_use" : "end_turn");
}

const GEMINI_STOP: Record<string, string> = {
  end_turn: "STOP",
  tool_use: "STOP",
  max_tokens: "MAX_TOKENS",
  refusal: "SAFETY",
};

export function renderGemini(turn: FakeTurn, ctx: RenderContext): Rendered {
  const words = turn.wordsPerChunk ?? 3;
  const usage = usageOf(turn, ctx);
  const chunk = (parts: unknown[]) =>
    sse(undefined, { candidates: [{ content: { role: "model", parts }, index: 0 }], modelVersion: ctx.model });
  const parts: string[] = [];
  for (const part of turn.parts) {
    if (part.type === "text") for (const text of chunkWords(part.text, words)) parts.push(chunk([{ text }]));
    else if (part.type === "thinking")
      for (const text of chunkWords(part.text, words)) parts.push(chunk([{ text, thought: true }]));
    else if (part.type === "tool_call")
      parts.push(
        chunk([
          { functionCall: { name: part.name, args: part.input ?? {} }, thoughtSignature: fakeSignature(part.name) },
        ]),
      );
  }
  const stop = defaultStop(turn);
  const cached = usage.cacheRead ?? 0;
  const tail = [
    sse(undefined, {
      candidates: [
        { content: { role: "model", parts: [{ text: "" }] }, finishReason: GEMINI_STOP[stop] ?? stop, index: 0 },
      ],
      usageMetadata: {
        promptTokenCount: usage.input + cached,
        candidatesTokenCount: usage.output,
        totalTokenCount: usage.input + cached + usage.output,
        ...(cached > 0 && { cachedContentTokenCount: cached }),
      },
      modelVersion: ctx.model,
    }),
  ];
  return { parts, tail };
}

export function renderResponses(turn: FakeTurn, ctx: RenderContext): Rendered {
  const words = turn.wordsPerChunk ?? 3;
  const usage = usageOf(turn, ctx);
  const id = `resp_fake_${ctx.sequence}`;
  const parts: string[] = [];
  const ev = (type: string, body: Record<string, unknown>) => parts.push(sse(type, { type, ...body }));
  ev("response.created", { response: { id, object: "response", status: "in_progress", model: ctx.model, output: [] } });
  turn.parts.forEach((part, output_index) => {
    if (part.type === "thinking") {
      const item_id = `rs_fake_${ctx.sequence}_${output_index}`;
      ev("response.output_item.added", { output_index, item: { id: item_id, type: "reasoning", summary: [] } });
      ev("response.reasoning_summary_part.added", {
        item_id,
        output_index,
        summary_index: 0,
        part: { type: "summary_text", text: "" },
      });
      for (const delta of chunkWords(part.text, words))
        ev("response.reasoning_summary_text.delta", { item_id, output_index, summary_index: 0, delta });
      ev("response.output_item.done", {
        output_index,
        item: {
          id: item_id,
          type: "reasoning",
          summary: [{ type: "summary_text", text: part.text }],
          encrypted_content: `enc-${fakeSignature(part.text)}`,
        },
      });
    } else if (part.type === "text") {
      const item_id = `msg_fake_${ctx.sequence}_${output_index}`;
      ev("response.output_item.added", {
        output_index,
        item: { id: item_id, type: "message", role: "assistant", content: [] },
      });
      for (const delta of chunkWords(part.text, words))
        ev("response.output_text.delta", { item_id, output_index, content_index: 0, delta });
      ev("response.output_item.done", {
        output_index,
        item: { id: item_id, type: "message", role: "assistant", content: [{ type: "output_text", text: part.text }] },
      });
    } else if (part.type === "tool_call") {
      const item_id = `fc_fake_${ctx.sequence}_${output_index}`;
      const call_id = part.id ?? `call_fake_${ctx.sequence}_${output_index}`;
      ev("response.output_item.added", {
        output_index,
        item: { id: item_id, type: "function_call", call_id, name: part.name, arguments: "" },
      });
      for (const delta of jsonFragments(part.input))
        ev("response.function_call_arguments.delta", { item_id, output_index, delta });
      ev("response.output_item.done", {
        output_index,
        item: {
          id: item_id,
          type: "function_call",
          call_id,
          name: part.name,
          arguments: JSON.stringify(part.input ?? {}),
        },
      });
    }
  });
  const stop = defaultStop(turn);
  const incomplete = stop === "max_tokens";
  const cached = usage.cacheRead ?? 0;
  const response = {
    id,
    object: "response",
    status: incomplete ? "incomplete" : "completed",
    ...(incomplete && { incomplete_details: { reason: "max_output_tokens" } }),
    usage: {
      input_tokens: usage.input + cached,
      input_tokens_details: { cached_tokens: cached },
      output_tokens: usage.output,
      total_tokens: usage.input + cached + usage.output,
    },
  };
  const type = incomplete ? "response.incomplete" : "response.completed";
  return { parts, tail: [sse(type, { type, response })] };
}

const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** One `application/vnd.amazon.eventstream` message, framed and checksummed by AWS's own codec. */
export function bedrockFrame(
  eventType: string,
  body: unknown,
  messageType: "event" | "exception" = "event",
): Uint8Array {
  const typeHeader = messageType === "event" ? ":event-type" : ":exception-type";
  return codec.encode({
    headers: {
      ":message-type": { type: "string", value: messageType },
      [typeHeader]: { type: "string", value: eventType },
      ":content-type": { type: "string", value: "application/json" },
    },
    body: fromUtf8(JSON.stringify(body)),
  });
}

const BEDROCK_STOP: Record<string, string> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "content_filtered",
};

export function renderBedrock(turn: FakeTurn, ctx: RenderContext): { parts: Uint8Array[]; tail: Uint8Array[] } {
  const words = turn.wordsPerChunk ?? 3;
  const usage = usageOf(turn, ctx);
  const parts: Uint8Array[] = [bedrockFrame("messageStart", { role: "assistant" })];
  turn.parts.forEach((part, contentBlockIndex) => {
    if (part.type === "text") {
      for (const text of chunkWords(part.text, words))
        parts.push(bedrockFrame("contentBlockDelta", { contentBlockIndex, delta: { text } }));
    } else if (part.type === "thinking") {
      for (const text of chunkWords(part.text, words))
        parts.push(bedrockFrame("contentBlockDelta", { contentBlockIndex, delta: { reasoningContent: { text } } }));
      parts.push(
        bedrockFrame("contentBlockDelta", {
          contentBlockIndex,
          delta: { reasoningContent: { signature: part.signature ?? fakeSignature(part.text) } },
        }),
      );
    } else if (part.type === "tool_call") {
      const toolUseId = part.id ?? `tooluse_fake_${ctx.sequence}_${contentBlockIndex}`;
      parts.push(
        bedrockFrame("contentBlockStart", { contentBlockIndex, start: { toolUse: { toolUseId, name: part.name } } }),
      );
      for (const input of jsonFragments(part.input))
        parts.push(bedrockFrame("contentBlockDelta", { contentBlockIndex, delta: { toolUse: { input } } }));
    } else return;
    parts.push(bedrockFrame("contentBlockStop", { contentBlockIndex }));
  });
  const stop = defaultStop(turn);
  const tail = [
    bedrockFrame("messageStop", { stopReason: BEDROCK_STOP[stop] ?? stop }),
    bedrockFrame("metadata", {
      usage: {
        inputTokens: usage.input,
        outputTokens: usage.output,
        totalTokens: usage.input + usage.output,
        ...(usage.cacheRead ? { cacheReadInputTokens: usage.cacheRead } : {}),
      },
      metrics: { latencyMs: 1 },
    }),
  ];
  return { parts, tail };
}

/** Error responses in each API's own format. */
export function moreErrorBody(
  api: "gemini" | "responses" | "bedrock",
  status: number,
): { body: unknown; headers: Record<string, string> } {
  const message = `fake ${status} error`;
  if (api === "gemini") {
    const statusName =
      status === 429
        ? "RESOURCE_EXHAUSTED"
        : status === 401
          ? "UNAUTHENTICATED"
          : status === 403
            ? "PERMISSION_DENIED"
            : status >= 500
              ? "INTERNAL"
              : "INVALID_ARGUMENT";
    return { body: { error: { code: status, message, status: statusName } }, headers: {} };
  }
  if (api === "responses") {
    const type = status === 429 ? "rate_limit_exceeded" : status >= 500 ? "server_error" : "invalid_request_error";
    return { body: { error: { message, type, param: null, code: type } }, headers: {} };
  }
  const name =
    status === 429
      ? "ThrottlingException"
      : status === 403
        ? "AccessDeniedException"
        : status >= 500
          ? "InternalServerException"
          : "ValidationException";
  return {
    body: { message },
    headers: { "x-amzn-errortype": `${name}:http://internal.amazon.com/coral/com.amazon.bedrock/` },
  };
}
