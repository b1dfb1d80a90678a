import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAnthropicClient, type AnthropicClientOptions } from "../../../src/model/providers/anthropic.js";
import type { Message } from "../../../src/model/types.js";
import {
  createFakeModelServer,
  fakeSignature,
  textTurn,
  toolTurn,
  type FakeModelServer,
} from "../../support/fake-model/index.js";
import { collect, done, instantRetry, lastEvent, PNG, readFileTool, request, texts, userText } from "./helpers.js";

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
  server.setHandler(undefined);
});

function client(extra: Partial<AnthropicClientOptions> = {}) {
  return createAnthropicClient({
    model: "claude-sonnet-4-5",
    apiKey: "sk-ant-test",
    baseUrl: server.anthropicBaseUrl,
    retry: instantRetry().options,
    ...extra,
  });
}

describe("anthropic client", () => {
  it("streams text in several deltas and sends an exact Messages request", async () => {
    server.enqueue(textTurn("The quick brown fox jumps over the lazy dog again and again."));
    const events = await collect(client().stream(request([userText("hello")])));
    const deltas = texts(events);
    expect(deltas.length).toBeGreaterThan(2);
    expect(deltas.join("")).toBe("The quick brown fox jumps over the lazy dog again and again.");
    expect(done(events).message.content).toEqual([{ type: "text", text: deltas.join("") }]);
    expect(done(events).stopReason).toBe("end_turn");

    const [received] = server.requests;
    expect(received!.path).toBe("/v1/messages");
    expect(received!.headers["x-api-key"]).toBe("sk-ant-test");
    expect(received!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(received!.headers["content-type"]).toBe("application/json");
    expect(received!.body).toMatchObject({ model: "claude-sonnet-4-5", max_tokens: 16384, stream: true });
    expect(received!.body.thinking).toBeUndefined();
    expect(received!.body.system).toEqual([
      { type: "text", text: "You are a test.", cache_control: { type: "ephemeral" } },
    ]);
    expect(received!.body.messages).toEqual([
      { role: "user", content: [{ type: "text", text: "hello", cache_control: { type: "ephemeral" } }] },
    ]);
  });

  it.each(["", "/", "/v1", "/v1/"])("accepts base URL suffix %j without doubling /v1", async (suffix) => {
    server.enqueue(textTurn("ok"));
    const events = await collect(
      client({ baseUrl: server.anthropicBaseUrl + suffix }).stream(request([userText("hi")])),
    );
    expect(done(events).message.content).toEqual([{ type: "text", text: "ok" }]);
    expect(server.requests[0]!.path).toBe("/v1/messages");
  });

  it("round-trips thinking with its signature and redacted thinking", async () => {
    server.enqueue({
      parts: [
        { type: "thinking", text: "Let me think about this carefully." },
        { type: "redacted_thinking", data: "opaque-blob" },
        { type: "text", text: "Answer." },
      ],
    });
    const model = client({ thinkingBudgetTokens: 4000 });
    const first = await collect(model.stream(request([userText("q1")])));
    expect(texts(first, "thinking_delta").join("")).toBe("Let me think about this carefully.");
    const message = done(first).message;
    expect(message.content).toEqual([
      {
        type: "thinking",
        text: "Let me think about this carefully.",
        signature: fakeSignature("Let me think about this carefully."),
      },
      { type: "thinking", text: "", redacted: "opaque-blob" },
      { type: "text", text: "Answer." },
    ]);
    expect(server.requests[0]!.body.thinking).toEqual({ type: "enabled", budget_tokens: 4000 });

    server.enqueue(textTurn("second"));
    await collect(model.stream(request([userText("q1"), message, userText("q2")])));
    expect(server.requests[1]!.body.messages[1]).toEqual({
      role: "assistant",
      content: [
        {
          type: "thinking",
          thinking: "Let me think about this carefully.",
          signature: fakeSignature("Let me think about this carefully."),
        },
        { type: "redacted_thinking", data: "opaque-blob" },
        { type: "text", text: "Answer." },
      ],
    });
  });

  it("drops unsigned thinking and keeps the thinking budget below max_tokens", async () => {
    server.enqueue(textTurn("ok"));
    const history: Message[] = [
      userText("a"),
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "from another provider" },
          { type: "text", text: "b" },
        ],
      },
      userText("c"),
    ];
    await collect(client({ thinkingBudgetTokens: 50_000, maxOutputTokens: 8000 }).stream(request(history)));
    const body = server.requests[0]!.body;
    expect(body.messages[1]).toEqual({ role: "assistant", content: [{ type: "text", text: "b" }] });
    expect(body.thinking).toEqual({ type: "enabled", budget_tokens: 7999 });
    expect(body.max_tokens).toBe(8000);
  });

  it("streams parallel tool calls and sends their results back as one user message", async () => {
    server.enqueue({
      parts: [
        { type: "text", text: "Reading both." },
        { type: "tool_call", name: "read_file", input: { path: "a.txt" }, id: "toolu_a" },
        { type: "tool_call", name: "read_file", input: { path: "b.png" }, id: "toolu_b" },
      ],
    });
    const model = client();
    const first = await collect(model.stream(request([userText("read")], { tools: [readFileTool] })));
    expect(first.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", id: "toolu_a", name: "read_file" },
      { type: "tool_call_start", id: "toolu_b", name: "read_file" },
    ]);
    // Each call is reported complete as soon as its arguments are, in order, before the message ends.
    expect(
      first.filter((e) => e.type === "tool_call_start" || e.type === "tool_call_ready").map((e) => e.type),
    ).toEqual(["tool_call_start", "tool_call_ready", "tool_call_start", "tool_call_ready"]);
    expect(first.filter((e) => e.type === "tool_call_ready")).toEqual([
      { type: "tool_call_ready", id: "toolu_a", name: "read_file", input: { path: "a.txt" } },
      { type: "tool_call_ready", id: "toolu_b", name: "read_file", input: { path: "b.png" } },
    ]);
    const finished = done(first);
    expect(finished.stopReason).toBe("tool_use");
    expect(finished.message.content.slice(1)).toEqual([
      { type: "tool_call", id: "toolu_a", name: "read_file", input: { path: "a.txt" } },
      { type: "tool_call", id: "toolu_b", name: "read_file", input: { path: "b.png" } },
    ]);
    expect(server.requests[0]!.body.tools).toEqual([
      { name: "read_file", description: "Read a file", input_schema: readFileTool.inputSchema },
    ]);

    server.enqueue(textTurn("done"));
    const history: Message[] = [
      userText("read"),
      finished.message,
      {
        role: "tool",
        toolCallId: "toolu_a",
        toolName: "read_file",
        content: [{ type: "text", text: "A" }],
        isError: false,
      },
      {
        role: "tool",
        toolCallId: "toolu_b",
        toolName: "read_file",
        content: [{ type: "image", mimeType: "image/png", data: PNG }],
        isError: true,
      },
      userText("and then?"),
    ];
    await collect(model.stream(request(history, { tools: [readFileTool] })));
    const sent = server.requests[1]!.body.messages;
    expect(sent).toHaveLength(3);
    expect(sent[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "toolu_a", content: [{ type: "text", text: "A" }] },
        {
          type: "tool_result",
          tool_use_id: "toolu_b",
          content: [{ type: "image", source: { type: "base64", media_type: "image/png", data: PNG } }],
          is_error: true,
        },
        { type: "text", text: "and then?", cache_control: { type: "ephemeral" } },
      ],
    });
    expect(server.requests[1]!.messages.filter((m) => m.role === "tool").map((m) => m.toolCallId)).toEqual([
      "toolu_a",
      "toolu_b",
    ]);
  });

  it("sends images in user content as base64 sources", async () => {
    server.enqueue(textTurn("a pixel"));
    await collect(
      client().stream(
        request([
          {
            role: "user",
            content: [
              { type: "text", text: "what is this" },
              { type: "image", mimeType: "image/png", data: PNG },
            ],
          },
        ]),
      ),
    );
    expect(server.requests[0]!.body.messages[0].content[1]).toEqual({
      type: "image",
      source: { type: "base64", media_type: "image/png", data: PNG },
      cache_control: { type: "ephemeral" },
    });
  });

  it("reports usage from message_start and message_delta", async () => {
    server.enqueue({ ...textTurn("counted"), usage: { input: 1234, output: 56, cacheRead: 1000 } });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events.filter((e) => e.type === "usage")[0]).toEqual({
      type: "usage",
      usage: { inputTokens: 1234, outputTokens: 1, cacheReadTokens: 1000, cacheWriteTokens: 0 },
    });
    expect(done(events).usage).toEqual({
      inputTokens: 1234,
      outputTokens: 56,
      cacheReadTokens: 1000,
      cacheWriteTokens: 0,
    });
  });

  it.each([
    ["end_turn", "end_turn"],
    ["stop_sequence", "end_turn"],
    ["pause_turn", "end_turn"],
    ["max_tokens", "max_tokens"],
    ["refusal", "refusal"],
    ["tool_use", "tool_use"],
  ])("maps stop reason %s to %s", async (wire, expected) => {
    server.enqueue({ ...textTurn("x"), stopReason: wire });
    expect(done(await collect(client().stream(request([userText("hi")])))).stopReason).toBe(expected);
  });

  it("retries a 429 honouring retry-after-ms, then succeeds", async () => {
    const retry = instantRetry();
    server.enqueue({ parts: [], httpError: { status: 429, headers: { "retry-after-ms": "7" } } }, textTurn("finally"));
    const events = await collect(client({ retry: retry.options }).stream(request([userText("hi")])));
    expect(events[0]).toEqual({
      type: "retry",
      attempt: 1,
      delayMs: 7,
      reason: "Anthropic API error 429 (rate_limit_error): fake 429 error",
    });
    expect(texts(events).join("")).toBe("finally");
    expect(server.requests).toHaveLength(2);
    expect(retry.delays).toEqual([7]);
  });

  it("retries an overloaded stream error that arrives before any content", async () => {
    const overloaded =
      'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":3,"output_tokens":1}}}\n\n' +
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n';
    server.enqueue({ parts: [], raw: overloaded }, textTurn("recovered"));
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events.filter((e) => e.type === "retry")).toHaveLength(1);
    expect(done(events).message.content).toEqual([{ type: "text", text: "recovered" }]);
  });

  it("gives up after the configured retries with the last status", async () => {
    server.setHandler(() => ({ parts: [], httpError: { status: 500 } }));
    const events = await collect(client({ retry: instantRetry(2).options }).stream(request([userText("hi")])));
    expect(events.map((e) => e.type)).toEqual(["retry", "retry", "error"]);
    expect(lastEvent(events)).toEqual({
      type: "error",
      message: "Anthropic API error 500 (api_error): fake 500 error",
      aborted: false,
      status: 500,
      exhausted: true,
    });
    expect(server.requests).toHaveLength(3);
  });

  it("does not retry a 400 and passes the server's message on", async () => {
    server.enqueue({
      parts: [],
      httpError: {
        status: 400,
        body: { type: "error", error: { type: "invalid_request_error", message: "messages.0: bad" } },
      },
    });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events).toEqual([
      {
        type: "error",
        message: "Anthropic API error 400 (invalid_request_error): messages.0: bad",
        aborted: false,
        status: 400,
      },
    ]);
  });

  it("ends with an aborted error, not a throw, when the request is cancelled mid-stream", async () => {
    server.enqueue({ ...textTurn("one two three four five six"), hangAfterParts: true });
    const controller = new AbortController();
    const events = [];
    for await (const event of client().stream(request([userText("hi")], { signal: controller.signal }))) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(events[0]!.type).toBe("usage");
    expect(lastEvent(events)).toEqual({ type: "error", message: "Request aborted", aborted: true });
    expect(events.filter((e) => e.type === "done")).toHaveLength(0);
  });

  it("fails a silent connection after the idle timeout, retrying only before content", async () => {
    let release = () => {};
    const stalled = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    server.setHandler(async () => {
      if (++calls === 1) await stalled;
      return { ...textTurn("late but whole"), hangAfterParts: calls === 2 };
    });
    try {
      const events = await collect(client({ idleTimeoutMs: 300 }).stream(request([userText("hi")])));
      expect(events[0]).toEqual({
        type: "retry",
        attempt: 1,
        delayMs: 500,
        reason: "Anthropic API sent nothing for 300 ms",
      });
      expect(texts(events).join("")).toBe("late but whole");
      expect(lastEvent(events)).toEqual({
        type: "error",
        message: "Anthropic API sent nothing for 300 ms (the response was interrupted)",
        aborted: false,
      });
    } finally {
      release();
    }
  });

  it("answers an already-aborted request without calling the server", async () => {
    const controller = new AbortController();
    controller.abort();
    const events = await collect(client().stream(request([userText("hi")], { signal: controller.signal })));
    expect(events).toEqual([{ type: "error", message: "Request aborted", aborted: true }]);
    expect(server.requests).toHaveLength(0);
  });

  it("turns malformed stream JSON into an error event", async () => {
    server.enqueue({ parts: [], raw: "event: message_start\ndata: {not json\n\n" });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events).toHaveLength(1);
    expect(lastEvent(events)).toMatchObject({
      type: "error",
      aborted: false,
      message: expect.stringContaining("malformed"),
    });
  });

  it("keeps unparsable tool input raw and empty input as {}", async () => {
    const raw =
      [
        'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":1,"output_tokens":1}}}',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t1","name":"ls","input":{}}}',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}',
        'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"t2","name":"read_file","input":{}}}',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\\"path\\": \\"a"}}',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":9}}',
        'event: message_stop\ndata: {"type":"message_stop"}',
      ].join("\n\n") + "\n\n";
    server.enqueue({ parts: [], raw });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(done(events).message.content).toEqual([
      { type: "tool_call", id: "t1", name: "ls", input: {} },
      { type: "tool_call", id: "t2", name: "read_file", input: { __raw: '{"path": "a' } },
    ]);
  });

  it("treats a stream that stops before message_stop as a failure", async () => {
    server.setHandler(() => ({
      parts: [],
      raw: 'event: message_start\ndata: {"type":"message_start","message":{}}\n\n',
    }));
    const events = await collect(client({ retry: instantRetry(1).options }).stream(request([userText("hi")])));
    expect(events.map((e) => e.type)).toEqual(["usage", "retry", "usage", "error"]);
    expect(lastEvent(events)).toMatchObject({ message: expect.stringContaining("ended before message_stop") });
  });

  it("reports connection failures as network errors after retrying", async () => {
    const dead = createAnthropicClient({
      model: "claude-haiku-4-5",
      apiKey: "k",
      baseUrl: "http://127.0.0.1:1",
      retry: instantRetry(1).options,
    });
    const events = await collect(dead.stream(request([userText("hi")])));
    expect(events.map((e) => e.type)).toEqual(["retry", "error"]);
    expect(lastEvent(events)).toMatchObject({
      aborted: false,
      message: expect.stringContaining("Network error talking to Anthropic API"),
    });
  });

  it("describes the model from the catalog", () => {
    const model = createAnthropicClient({ model: "claude-opus-4-1-20250805", apiKey: "k" });
    expect(model).toMatchObject({
      id: "anthropic:claude-opus-4-1-20250805",
      provider: "anthropic",
      contextWindow: 200_000,
      supportsImages: true,
    });
  });

  it("sends a tool call for an unparsable input back as an object", async () => {
    server.enqueue(toolTurn("ls", {}));
    const history: Message[] = [
      userText("a"),
      { role: "assistant", content: [{ type: "tool_call", id: "t", name: "ls", input: "not an object" }] },
      { role: "tool", toolCallId: "t", toolName: "ls", content: [{ type: "text", text: "bad input" }], isError: true },
    ];
    await collect(client({ promptCaching: false }).stream(request(history)));
    expect(server.requests[0]!.body.messages[1].content[0]).toEqual({
      type: "tool_use",
      id: "t",
      name: "ls",
      input: {},
    });
    expect(server.requests[0]!.body.system).toEqual([{ type: "text", text: "You are a test." }]);
  });
  it("sends a tool call whose JSON did not parse as {}, not as the raw placeholder", async () => {
    server.enqueue(toolTurn("ls", {}));
    const history: Message[] = [
      userText("a"),
      {
        role: "assistant",
        content: [{ type: "tool_call", id: "t", name: "read_file", input: { __raw: '{"path": "a' } }],
      },
      {
        role: "tool",
        toolCallId: "t",
        toolName: "read_file",
        content: [{ type: "text", text: "bad JSON" }],
        isError: true,
      },
    ];
    await collect(client({ promptCaching: false }).stream(request(history)));
    expect(server.requests[0]!.body.messages[1].content[0]).toEqual({
      type: "tool_use",
      id: "t",
      name: "read_file",
      input: {},
    });
  });
});
