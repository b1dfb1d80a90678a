import { createHash } from "node:crypto";
import type { FakePart, FakeTurn } from "./types.js";

// Renders a FakeTurn as the SSE frames each real API sends, in the same order and shape.

export type RenderContext = {
  model: string;
  requestBytes: number;
  includeUsage: boolean;
  sequence: number;
  /** Chat Completions: put usage on the finish chunk unasked, as Mistral does. */
  usageOnFinish?: boolean;
};
export type Rendered = {
  /** Frames up to and including the last part. */
  parts: string[];
  /** Frames that finish the message (omitted when the turn hangs). */
  tail: string[];
};

/** Splits text into pieces of `words` words each, keeping all whitespace, so pieces join back exactly. */
export function chunkWords(text: string, words: number): string[] {
  const tokens = text.match(/\s*\S+\s*/g) ?? (text ? [text] : []);
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i += words) out.push(tokens.slice(i, i + words).join(""));
  return out;
}

/** Tool input JSON in about three fragments, like a model streaming its arguments. */
export function jsonFragments(input: unknown): string[] {
  const json = JSON.stringify(input ?? {});
  const size = Math.max(1, Math.ceil(json.length / 3));
  const out: string[] = [];
  for (let i = 0; i < json.length; i += size) out.push(json.slice(i, i + size));
  return out;
}

export function fakeSignature(text: string): string {
  return `fake-sig-${createHash("sha256").update(text).digest("base64url").slice(0, 24)}`;
}

function outputChars(parts: FakePart[]): number {
  return parts.reduce(
    (n, p) =>
      n +
      (p.type === "tool_call"
        ? JSON.stringify(p.input ?? {}).length
        : p.type === "redacted_thinking"
          ? 0
          : p.text.length),
    0,
  );
}

/** Usage a turn reports: its own, or about 4 characters a token of the request and of the output. */
export function usageOf(turn: FakeTurn, ctx: RenderContext) {
  return (
    turn.usage ?? {
      input: Math.ceil(ctx.requestBytes / 4),
      output: Math.max(1, Math.ceil(outputChars(turn.parts) / 4)),
    }
  );
}

function frame(event: string | undefined, data: unknown): string {
  const json = typeof data === "string" ? data : JSON.stringify(data);
  return event ? `event: ${event}\ndata: ${json}\n\n` : `data: ${json}\n\n`;
}

const ANTHROPIC_STOP: Record<string, string> = {
  end_turn: "end_turn",
  tool_use: "tool_use",
  max_tokens: "max_tokens",
  refusal: "refusal",
};
const OPENAI_STOP: Record<string, string> = {
  end_turn: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  refusal: "content_filter",
};

function defaultStop(turn: FakeTurn): string {
  return turn.stopReason ?? (turn.parts.some((p) => p.type === "tool_call") ? "tool_use" : "end_turn");
}

export function renderAnthropic(turn: FakeTurn, ctx: RenderContext): Rendered {
  const words = turn.wordsPerChunk ?? 3;
  const usage = usageOf(turn, ctx);
  const parts: string[] = [];
  const ev = (type: string, body: Record<string, unknown>) => parts.push(frame(type, { type, ...body }));
  ev("message_start", {
    message: {
      id: `msg_fake_${ctx.sequence}`,
      type: "message",
      role: "assistant",
      model: ctx.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: usage.cacheRead ?? 0,
        output_tokens: 1,
      },
    },
  });
  turn.parts.forEach((part, index) => {
    const start = (content_block: Record<string, unknown>) => {
      ev("content_block_start", { index, content_block });
      if (index === 0) parts.push(frame("ping", { type: "ping" }));
    };
    if (part.type === "text") {
      start({ type: "text", text: "" });
      for (const text of chunkWords(part.text, words))
        ev("content_block_delta", { index, delta: { type: "text_delta", text } });
    } else if (part.type === "thinking") {
      start({ type: "thinking", thinking: "", signature: "" });
      for (const thinking of chunkWords(part.text, words))
        ev("content_block_delta", { index, delta: { type: "thinking_delta", thinking } });
      ev("content_block_delta", {
        index,
        delta: { type: "signature_delta", signature: part.signature ?? fakeSignature(part.text) },
      });
    } else if (part.type === "redacted_thinking") {
      start({ type: "redacted_thinking", data: part.data });
    } else {
      const id = part.id ?? `toolu_fake_${ctx.sequence}_${index}`;
      start({ type: "tool_use", id, name: part.name, input: {} });
      ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json: "" } });
      for (const partial_json of jsonFragments(part.input))
        ev("content_block_delta", { index, delta: { type: "input_json_delta", partial_json } });
    }
    ev("content_block_stop", { index });
  });
  const stop = defaultStop(turn);
  const tail = [
    frame("message_delta", {
      type: "message_delta",
      delta: { stop_reason: ANTHROPIC_STOP[stop] ?? stop, stop_sequence: null },
      usage: { output_tokens: usage.output },
    }),
    frame("message_stop", { type: "message_stop" }),
  ];
  return { parts, tail };
}

export function renderOpenAi(turn: FakeTurn, ctx: RenderContext): Rendered {
  const words = turn.wordsPerChunk ?? 3;
  const usage = usageOf(turn, ctx);
  const base = {
    id: `chatcmpl-fake-${ctx.sequence}`,
    object: "chat.completion.chunk",
    created: 1_700_000_000,
    model: ctx.model,
  };
  const extra = ctx.includeUsage ? { usage: null } : {};
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
    frame(undefined, { ...base, choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }], ...extra });
  const parts: string[] = [chunk({ role: "assistant", content: "" })];
  let toolIndex = 0;
  turn.parts.forEach((part, index) => {
    if (part.type === "text") {
      for (const content of chunkWords(part.text, words)) parts.push(chunk({ content }));
    } else if (part.type === "thinking") {
      for (const reasoning_content of chunkWords(part.text, words)) parts.push(chunk({ reasoning_content }));
    } else if (part.type === "tool_call") {
      const id = part.id ?? `call_fake_${ctx.sequence}_${index}`;
      const at = toolIndex++;
      parts.push(
        chunk({ tool_calls: [{ index: at, id, type: "function", function: { name: part.name, arguments: "" } }] }),
      );
      for (const args of jsonFragments(part.input))
        parts.push(chunk({ tool_calls: [{ index: at, function: { arguments: args } }] }));
    }
  });
  const stop = defaultStop(turn);
  const cached = usage.cacheRead ?? 0;
  const wireUsage = {
    prompt_tokens: usage.input + cached,
    completion_tokens: usage.output,
    total_tokens: usage.input + cached + usage.output,
  };
  const finish = chunk({}, OPENAI_STOP[stop] ?? stop);
  const tail = [
    ctx.usageOnFinish && !ctx.includeUsage
      ? finish.replace(/\}\n\n$/, `,"usage":${JSON.stringify(wireUsage)}}\n\n`)
      : finish,
  ];
  if (ctx.includeUsage) {
    tail.push(
      frame(undefined, {
        ...base,
        choices: [],
        usage: {
          prompt_tokens: usage.input + cached,
          completion_tokens: usage.output,
          total_tokens: usage.input + cached + usage.output,
          prompt_tokens_details: { cached_tokens: cached },
        },
      }),
    );
  }
  tail.push(frame(undefined, "[DONE]"));
  return { parts, tail };
}

export function errorBody(api: "anthropic" | "openai", status: number): unknown {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 529
        ? "overloaded_error"
        : status >= 500
          ? "api_error"
          : "invalid_request_error";
  const message = `fake ${status} error`;
  return api === "anthropic"
    ? { type: "error", error: { type, message } }
    : { error: { message, type, param: null, code: null } };
}
