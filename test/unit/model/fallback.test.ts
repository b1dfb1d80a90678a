import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createDeltaReader } from "../../../src/agent/delta-reader.js";
import { createFallbackClient } from "../../../src/model/client/fallback.js";
import type { BufferedModelStream, ModelClient, ModelEvent } from "../../../src/model/types.js";
import { createModelClient } from "../../../src/model/client/resolve.js";
import { createFakeModelServer, textTurn, type FakeModelServer } from "../../support/fake-model/index.js";
import { collect, done, instantRetry, request, texts, userText } from "./helpers.js";

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

function clients() {
  const env = {
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: server.origin,
    OPENAI_COMPATIBLE_BASE_URL: server.openaiBaseUrl,
    GEMINI_API_KEY: "k",
    GOOGLE_BASE_URL: server.origin,
  };
  const options = { env, retry: instantRetry(2).options };
  return {
    primary: () => createModelClient("anthropic:claude-sonnet-4-5", options),
    backup: { spec: "openai-compatible:local", create: () => createModelClient("openai-compatible:local", options) },
    gemini: { spec: "google:gemini-2.5-flash", create: () => createModelClient("google:gemini-2.5-flash", options) },
    broken: { spec: "azure:gpt-4o", create: () => createModelClient("azure:gpt-4o", options) },
  };
}

const rateLimited = { parts: [], httpError: { status: 429 } };

describe("fallback models", () => {
  it("answers with the next model when the first is rate-limited past its retries, and says so", async () => {
    const c = clients();
    server.enqueue(rateLimited, rateLimited, rateLimited, textTurn("from the backup"));
    const client = createFallbackClient(await c.primary(), [c.backup]);
    const events = await collect(client.stream(request([userText("hi")])));
    expect(texts(events).join("")).toBe("from the backup");
    expect(done(events).stopReason).toBe("end_turn");
    const notice = events.find((e) => e.type === "notice");
    expect(notice).toMatchObject({
      message: expect.stringMatching(
        /anthropic:claude-sonnet-4-5 is unavailable \(.*429.*\); openai-compatible:local is answering instead/,
      ),
    });
    expect(server.requests.map((r) => r.api)).toEqual(["anthropic", "anthropic", "anthropic", "openai"]);
    // The same conversation went to the backup.
    expect(server.requests[3]!.lastUserText).toBe("hi");
  });

  it("skips a fallback that cannot be built, with a notice, and tries the next", async () => {
    const c = clients();
    server.enqueue(rateLimited, rateLimited, rateLimited, textTurn("from gemini"));
    const client = createFallbackClient(await c.primary(), [c.broken, c.gemini]);
    const events = await collect(client.stream(request([userText("hi")])));
    expect(texts(events).join("")).toBe("from gemini");
    const notices = events.flatMap((e) => (e.type === "notice" ? [e.message] : []));
    expect(notices[0]).toMatch(/Fallback model azure:gpt-4o cannot be used: .*AZURE_OPENAI_ENDPOINT/);
    expect(notices[1]).toMatch(/google:gemini-2.5-flash is answering instead/);
  });

  it("does not fall back on errors another model would not fix, nor after content was streamed", async () => {
    const c = clients();
    server.enqueue({ parts: [], httpError: { status: 400 } });
    const client = createFallbackClient(await c.primary(), [c.backup]);
    const bad = await collect(client.stream(request([userText("hi")])));
    expect(bad.at(-1)).toMatchObject({ type: "error", status: 400 });
    expect(server.requests).toHaveLength(1);

    server.reset();
    server.enqueue({ parts: [{ type: "text", text: "half an answ" }], hangAfterParts: true });
    const controller = new AbortController();
    const events: unknown[] = [];
    for await (const event of client.stream(request([userText("hi")], { signal: controller.signal }))) {
      events.push(event);
      if (event.type === "text_delta") controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: "error", aborted: true });
    expect(server.requests.map((r) => r.api)).toEqual(["anthropic"]);
  });

  it("reports every model's failure when all are down", async () => {
    const c = clients();
    for (let i = 0; i < 6; i++) server.enqueue(rateLimited);
    const client = createFallbackClient(await c.primary(), [c.backup]);
    const events = await collect(client.stream(request([userText("hi")])));
    const last = events.at(-1);
    expect(last).toMatchObject({ type: "error", aborted: false });
    expect(last?.type === "error" && last.message).toMatch(/429/);
    expect(server.requests).toHaveLength(6);
  });

  it("hands a turn a whole network read at a time, as the model's own stream does", async () => {
    const c = clients();
    const words = Array.from({ length: 2000 }, (_, i) => `w${i}`).join(" ");
    server.enqueue(textTurn(words));
    const client = createFallbackClient(await c.primary(), [c.backup]);
    const reader = createDeltaReader(client.stream(request([userText("hi")])));
    const reads: ModelEvent[][] = [];
    for (let events = await reader.next(); events; events = await reader.next()) reads.push(events);
    const text = reads.flat().flatMap((e) => (e.type === "text_delta" ? [e.text] : []));
    expect(text.join("")).toBe(words);
    // ~670 deltas of 3 words, received in a few reads: merged per read, not handed over one by one.
    expect(text.length).toBeLessThan(100);
  });

  it("moves to the next model on an exhausted error that arrived with other events of a read", async () => {
    const c = clients();
    server.enqueue(textTurn("from the backup"));
    const down = { type: "error", message: "overloaded", aborted: false, exhausted: true } as const;
    // The primary's stream: a usage event, then (already received) another one and the failure.
    const primary: ModelClient = {
      ...(await c.primary()),
      stream: () => {
        const queue: ModelEvent[] = [{ type: "usage", usage: { inputTokens: 1, outputTokens: 0 } }];
        let buffered: ModelEvent[] = [{ type: "usage", usage: { inputTokens: 2, outputTokens: 0 } }, down];
        const stream: BufferedModelStream = {
          takeBuffered: () => buffered.splice(0),
          next: async () => {
            const value = queue.shift() ?? buffered.shift();
            buffered = value === undefined ? [] : buffered;
            return value === undefined ? { done: true, value: undefined } : { done: false, value };
          },
          [Symbol.asyncIterator]: () => stream,
        };
        return stream;
      },
    };
    const client = createFallbackClient(primary, [c.backup]);
    const reader = createDeltaReader(client.stream(request([userText("hi")])));
    const events: ModelEvent[] = [];
    for (let read = await reader.next(); read; read = await reader.next()) events.push(...read);
    expect(events.some((e) => e.type === "error")).toBe(false);
    expect(events.find((e) => e.type === "notice")).toMatchObject({ message: expect.stringMatching(/overloaded/) });
    expect(texts(events).join("")).toBe("from the backup");
  });
});
