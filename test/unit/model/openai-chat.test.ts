import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createOpenAiChatClient, type OpenAiChatClientOptions } from "../../../src/model/providers/openai-chat.js";
import { ModelConfigError } from "../../../src/model/errors.js";
import type { Message } from "../../../src/model/types.js";
import { createFakeModelServer, textTurn, type FakeModelServer } from "../../support/fake-model/index.js";
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

function client(extra: Partial<OpenAiChatClientOptions> = {}) {
  return createOpenAiChatClient({
    provider: "openai",
    model: "gpt-5",
    apiKey: "sk-test",
    baseUrl: server.openaiBaseUrl,
    maxOutputTokens: 16384,
    retry: instantRetry().options,
    ...extra,
  });
}

function sse(chunks: unknown[]): string {
  return chunks.map((c) => `data: ${typeof c === "string" ? c : JSON.stringify(c)}\n\n`).join("");
}

describe("openai chat client", () => {
  it("streams text in several deltas and sends an exact Chat Completions request", async () => {
    server.enqueue(textTurn("Several words arrive here in more than one chunk, as usual."));
    const events = await collect(client().stream(request([userText("hello")])));
    expect(texts(events).length).toBeGreaterThan(2);
    expect(done(events).message.content).toEqual([
      { type: "text", text: "Several words arrive here in more than one chunk, as usual." },
    ]);
    expect(done(events).stopReason).toBe("end_turn");

    const [received] = server.requests;
    expect(received!.path).toBe("/v1/chat/completions");
    expect(received!.headers.authorization).toBe("Bearer sk-test");
    expect(received!.body).toEqual({
      model: "gpt-5",
      messages: [
        { role: "system", content: "You are a test." },
        { role: "user", content: "hello" },
      ],
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 16384,
    });
  });

  it("uses max_tokens and no Authorization header for keyless compatible servers", async () => {
    server.enqueue(textTurn("local"));
    const local = client({ provider: "openai-compatible", model: "qwen", apiKey: undefined, maxOutputTokens: 2048 });
    expect(local.id).toBe("openai-compatible:qwen");
    expect(local.supportsImages).toBe(false);
    await collect(local.stream(request([userText("hi")])));
    const received = server.requests[0]!;
    expect(received.headers.authorization).toBeUndefined();
    expect(received.body.max_tokens).toBe(2048);
    expect(received.body.max_completion_tokens).toBeUndefined();
  });

  it("omits the output cap when none is configured", async () => {
    server.enqueue(textTurn("ok"));
    await collect(
      client({ provider: "ollama", model: "llama3.1:8b", maxOutputTokens: undefined }).stream(
        request([userText("hi")]),
      ),
    );
    expect(server.requests[0]!.body.max_tokens).toBeUndefined();
    expect(server.requests[0]!.body.model).toBe("llama3.1:8b");
  });

  it("requires a base URL for openai-compatible", () => {
    expect(() => createOpenAiChatClient({ provider: "openai-compatible", model: "m" })).toThrow(ModelConfigError);
  });

  it("streams reasoning as thinking and drops it when sending history back", async () => {
    server.enqueue({
      parts: [
        { type: "thinking", text: "Hmm, consider the options." },
        { type: "text", text: "Done." },
      ],
    });
    const model = client();
    const events = await collect(model.stream(request([userText("q")])));
    expect(texts(events, "thinking_delta").join("")).toBe("Hmm, consider the options.");
    const message = done(events).message;
    expect(message.content).toEqual([
      { type: "thinking", text: "Hmm, consider the options." },
      { type: "text", text: "Done." },
    ]);
    server.enqueue(textTurn("next"));
    await collect(model.stream(request([userText("q"), message, userText("q2")])));
    expect(server.requests[1]!.body.messages[2]).toEqual({ role: "assistant", content: "Done." });
  });

  it("reads delta.reasoning too", async () => {
    server.enqueue({
      parts: [],
      raw: sse([
        { choices: [{ index: 0, delta: { reasoning: "thinking..." } }] },
        { choices: [{ index: 0, delta: { content: "hi" }, finish_reason: "stop" }] },
        "[DONE]",
      ]),
    });
    const events = await collect(client().stream(request([userText("q")])));
    expect(texts(events, "thinking_delta")).toEqual(["thinking..."]);
    expect(done(events).message.content).toEqual([
      { type: "thinking", text: "thinking..." },
      { type: "text", text: "hi" },
    ]);
  });

  it("accumulates parallel tool calls by index and sends results back as tool messages", async () => {
    server.enqueue({
      parts: [
        { type: "tool_call", name: "read_file", input: { path: "a.txt" }, id: "call_a" },
        { type: "tool_call", name: "read_file", input: { path: "b.png" }, id: "call_b" },
      ],
    });
    const model = client();
    const events = await collect(model.stream(request([userText("read")], { tools: [readFileTool] })));
    expect(events.filter((e) => e.type === "tool_call_start")).toEqual([
      { type: "tool_call_start", id: "call_a", name: "read_file" },
      { type: "tool_call_start", id: "call_b", name: "read_file" },
    ]);
    // Each call is reported complete as soon as its arguments are, in order, before the message ends.
    expect(
      events.filter((e) => e.type === "tool_call_start" || e.type === "tool_call_ready").map((e) => e.type),
    ).toEqual(["tool_call_start", "tool_call_ready", "tool_call_start", "tool_call_ready"]);
    expect(events.filter((e) => e.type === "tool_call_ready")).toEqual([
      { type: "tool_call_ready", id: "call_a", name: "read_file", input: { path: "a.txt" } },
      { type: "tool_call_ready", id: "call_b", name: "read_file", input: { path: "b.png" } },
    ]);
    const finished = done(events);
    expect(finished.stopReason).toBe("tool_use");
    expect(finished.message.content).toEqual([
      { type: "tool_call", id: "call_a", name: "read_file", input: { path: "a.txt" } },
      { type: "tool_call", id: "call_b", name: "read_file", input: { path: "b.png" } },
    ]);
    expect(server.requests[0]!.body.tools).toEqual([
      {
        type: "function",
        function: { name: "read_file", description: "Read a file", parameters: readFileTool.inputSchema },
      },
    ]);

    server.enqueue(textTurn("ok"));
    const history: Message[] = [
      userText("read"),
      finished.message,
      {
        role: "tool",
        toolCallId: "call_a",
        toolName: "read_file",
        content: [{ type: "text", text: "A" }],
        isError: false,
      },
      {
        role: "tool",
        toolCallId: "call_b",
        toolName: "read_file",
        content: [{ type: "image", mimeType: "image/png", data: PNG }],
        isError: false,
      },
    ];
    await collect(model.stream(request(history, { tools: [readFileTool] })));
    expect(server.requests[1]!.body.messages.slice(2)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [
          { id: "call_a", type: "function", function: { name: "read_file", arguments: '{"path":"a.txt"}' } },
          { id: "call_b", type: "function", function: { name: "read_file", arguments: '{"path":"b.png"}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_a", content: "A" },
      { role: "tool", tool_call_id: "call_b", content: "(1 image attached below)" },
      {
        role: "user",
        content: [
          { type: "text", text: "Images returned by the read_file tool (call call_b):" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
        ],
      },
    ]);
  });

  it("sends user images as data URLs", async () => {
    server.enqueue(textTurn("a pixel"));
    await collect(
      client().stream(
        request([
          {
            role: "user",
            content: [
              { type: "text", text: "what" },
              { type: "image", mimeType: "image/png", data: PNG },
            ],
          },
        ]),
      ),
    );
    expect(server.requests[0]!.body.messages[1]).toEqual({
      role: "user",
      content: [
        { type: "text", text: "what" },
        { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
      ],
    });
  });

  it("handles tool calls without ids or indexes, raw arguments and stop finish reasons", async () => {
    server.enqueue({
      parts: [],
      raw: sse([
        {
          choices: [
            {
              index: 0,
              delta: {
                tool_calls: [
                  { function: { name: "ls", arguments: "" } },
                  { function: { name: "grep", arguments: "{bad" } },
                ],
              },
            },
          ],
        },
        { choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
        "[DONE]",
      ]),
    });
    const events = await collect(client().stream(request([userText("q")])));
    const finished = done(events);
    expect(finished.stopReason).toBe("tool_use");
    const calls = finished.message.content.filter((p) => p.type === "tool_call");
    expect(calls.map((c) => [c.name, c.input])).toEqual([
      ["ls", {}],
      ["grep", { __raw: "{bad" }],
    ]);
    expect(calls.every((c) => /^call_\w+$/.test(c.id))).toBe(true);

    server.enqueue(textTurn("ok"));
    await collect(client().stream(request([userText("q"), finished.message])));
    expect(server.requests[1]!.body.messages[2].tool_calls[1].function.arguments).toBe("{bad");
  });

  it("reports usage with cached tokens apart", async () => {
    server.enqueue({ ...textTurn("x"), usage: { input: 300, output: 20, cacheRead: 700 } });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events.filter((e) => e.type === "usage")).toEqual([
      { type: "usage", usage: { inputTokens: 300, outputTokens: 20, cacheReadTokens: 700 } },
    ]);
    expect(done(events).usage).toEqual({ inputTokens: 300, outputTokens: 20, cacheReadTokens: 700 });
  });

  it.each([
    ["end_turn", "end_turn"],
    ["max_tokens", "max_tokens"],
    ["refusal", "refusal"],
    ["function_call", "tool_use"],
  ])("maps finish reason for %s to %s", async (stop, expected) => {
    server.enqueue({ ...textTurn("x"), stopReason: stop });
    expect(done(await collect(client().stream(request([userText("hi")])))).stopReason).toBe(expected);
  });

  it("retries a 429 then succeeds", async () => {
    server.enqueue({ parts: [], httpError: { status: 429, headers: { "retry-after": "1" } } }, textTurn("ok"));
    const retry = instantRetry();
    const events = await collect(client({ retry: retry.options }).stream(request([userText("hi")])));
    expect(events[0]).toMatchObject({ type: "retry", attempt: 1, delayMs: 1000 });
    expect(done(events).message.content).toEqual([{ type: "text", text: "ok" }]);
  });

  it("gives up after retries on 503", async () => {
    server.setHandler(() => ({ parts: [], httpError: { status: 503, body: "upstream down" } }));
    const events = await collect(client({ retry: instantRetry(3).options }).stream(request([userText("hi")])));
    expect(events.map((e) => e.type)).toEqual(["retry", "retry", "retry", "error"]);
    expect(lastEvent(events)).toEqual({
      type: "error",
      message: "OpenAI API error 503: upstream down",
      aborted: false,
      status: 503,
      exhausted: true,
    });
  });

  it("reports an error object sent inside the stream", async () => {
    server.enqueue({
      parts: [],
      raw: sse([{ error: { message: "context too long", type: "invalid_request_error", code: 400 } }]),
    });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events).toEqual([
      {
        type: "error",
        message: "OpenAI API stream error (invalid_request_error): context too long",
        aborted: false,
        status: 400,
      },
    ]);
  });

  it("aborts mid-stream with an aborted error", async () => {
    server.enqueue({ ...textTurn("a b c d e f g h"), hangAfterParts: true });
    const controller = new AbortController();
    const events = [];
    for await (const event of client().stream(request([userText("hi")], { signal: controller.signal }))) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(texts(events).length).toBeGreaterThan(0);
    expect(lastEvent(events)).toEqual({ type: "error", message: "Request aborted", aborted: true });
  });

  it("turns malformed stream JSON into an error event", async () => {
    server.enqueue({ parts: [], raw: "data: {oops\n\n" });
    const events = await collect(client().stream(request([userText("hi")])));
    expect(events).toEqual([
      { type: "error", message: "OpenAI API sent malformed stream data: {oops", aborted: false },
    ]);
  });

  it("accepts a stream without [DONE] once a finish reason arrived, and rejects a cut-off one", async () => {
    server.enqueue({
      parts: [],
      raw: sse([{ choices: [{ index: 0, delta: { content: "fine" }, finish_reason: "stop" }] }]),
    });
    expect(done(await collect(client().stream(request([userText("hi")])))).message.content).toEqual([
      { type: "text", text: "fine" },
    ]);

    server.enqueue({ parts: [], raw: sse([{ choices: [{ index: 0, delta: { content: "cut" } }] }]) });
    const events = await collect(client({ retry: instantRetry(0).options }).stream(request([userText("hi")])));
    expect(lastEvent(events)).toMatchObject({ type: "error", message: expect.stringContaining("interrupted") });
  });
});
