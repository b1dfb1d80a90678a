import { spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAnthropicClient } from "../../../src/model/providers/anthropic.js";
import { createOpenAiChatClient } from "../../../src/model/providers/openai-chat.js";
import { parseSse } from "../../../src/model/wire/sse.js";
import {
  chunkWords,
  createFakeModelServer,
  NO_SCRIPT_TEXT,
  textTurn,
  toolTurn,
  type FakeModelServer,
} from "../../support/fake-model/index.js";
import type { Message } from "../../../src/model/types.js";
import { collect, done, readFileTool, request, texts, userText } from "./helpers.js";

let server: FakeModelServer;
beforeAll(async () => {
  server = await createFakeModelServer();
});
afterAll(() => server.close());

const anthropic = () =>
  createAnthropicClient({ model: "claude-sonnet-4-5", apiKey: "k", baseUrl: server.anthropicBaseUrl });
const openai = () =>
  createOpenAiChatClient({ provider: "openai", model: "gpt-5", apiKey: "k", baseUrl: server.openaiBaseUrl });

describe("fake model server", () => {
  it("chunks words so the pieces join back exactly", () => {
    expect(chunkWords("  one two\nthree  four five ", 2)).toEqual(["  one two\n", "three  four ", "five "]);
    expect(chunkWords("", 3)).toEqual([]);
  });

  it("answers unscripted requests with a fixed text on both APIs", async () => {
    expect(done(await collect(anthropic().stream(request([userText("hi")])))).message.content).toEqual([
      { type: "text", text: NO_SCRIPT_TEXT },
    ]);
    expect(done(await collect(openai().stream(request([userText("hi")])))).message.content).toEqual([
      { type: "text", text: NO_SCRIPT_TEXT },
    ]);
  });

  it("records requests in one loose shape for both APIs", async () => {
    const before = server.requests.length;
    server.enqueue(
      toolTurn("read_file", { path: "x" }, { id: "call_1" }),
      toolTurn("read_file", { path: "x" }, { id: "call_1" }),
    );
    const history: Message[] = [
      userText("first"),
      { role: "assistant", content: [{ type: "text", text: "yes?" }] },
      userText("please read x"),
    ];
    const a = done(await collect(anthropic().stream(request(history, { tools: [readFileTool] }))));
    const o = done(await collect(openai().stream(request(history, { tools: [readFileTool] }))));
    server.enqueue(textTurn("a"), textTurn("o"));
    const result = {
      role: "tool" as const,
      toolCallId: "call_1",
      toolName: "read_file",
      content: [{ type: "text" as const, text: "X!" }],
      isError: false,
    };
    await collect(anthropic().stream(request([...history, a.message, result])));
    await collect(openai().stream(request([...history, o.message, result])));
    const [ra, ro, ra2, ro2] = server.requests.slice(before);
    for (const recorded of [ra!, ro!]) {
      expect(recorded.system).toBe("You are a test.");
      expect(recorded.lastUserText).toBe("please read x");
      expect(recorded.toolNames).toEqual(["read_file"]);
    }
    expect([ra!.api, ro!.api]).toEqual(["anthropic", "openai"]);
    for (const recorded of [ra2!, ro2!]) {
      expect(recorded.messages.slice(-2)).toEqual([
        {
          role: "assistant",
          text: "",
          images: 0,
          toolCalls: [{ id: "call_1", name: "read_file", input: { path: "x" } }],
        },
        expect.objectContaining({ role: "tool", text: "X!", toolCallId: "call_1" }),
      ]);
    }
  });

  it("waits for a number of requests", async () => {
    const target = server.requests.length + 2;
    const waiting = server.waitForRequests(target);
    await collect(openai().stream(request([userText("1")])));
    await collect(openai().stream(request([userText("2")])));
    expect((await waiting).length).toBeGreaterThanOrEqual(target);
  });

  it("streams a 20,000-word answer intact", async () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ");
    server.enqueue(textTurn(words), textTurn(words, { wordsPerChunk: 50 }));
    const a = await collect(anthropic().stream(request([userText("long")])));
    expect(texts(a).join("")).toBe(words);
    expect(texts(a).length).toBeGreaterThan(6000);
    const o = await collect(openai().stream(request([userText("long")])));
    expect(texts(o).join("")).toBe(words);
    expect(texts(o)).toHaveLength(400);
  });

  it("survives clients that abort mid-stream and keeps serving", async () => {
    const words = Array.from({ length: 20_000 }, (_, i) => `w${i}`).join(" ");
    server.enqueue(textTurn(words, { chunkDelayMs: 1 }), textTurn(words), textTurn("still alive"));
    for (const api of [anthropic(), openai()]) {
      const controller = new AbortController();
      let deltas = 0;
      for await (const event of api.stream(request([userText("go")], { signal: controller.signal }))) {
        if (event.type === "text_delta" && ++deltas === 3) controller.abort();
      }
    }
    expect(done(await collect(openai().stream(request([userText("again")])))).message.content).toEqual([
      { type: "text", text: "still alive" },
    ]);
  });

  it("leaves out the usage chunk unless the client asks for it", async () => {
    server.enqueue(textTurn("plain"));
    const response = await fetch(`${server.openaiBaseUrl}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({ model: "m", stream: true, messages: [{ role: "user", content: "hi" }] }),
    });
    const data: string[] = [];
    for await (const event of parseSse(response.body!)) data.push(event.data);
    expect(data.at(-1)).toBe("[DONE]");
    expect(data.some((d) => d.includes('"usage"'))).toBe(false);
  });

  it("runs as a standalone process that prints its URLs first", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fake-model-"));
    const script = join(dir, "turns.json");
    await writeFile(script, JSON.stringify([{ parts: [{ type: "text", text: "from the script" }] }]));
    const child = spawn(process.execPath, ["--import", "tsx", "test/support/fake-model/serve.ts", "--script", script], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    try {
      const firstLine = await new Promise<string>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once("line", resolve);
        child.once("exit", (code) => reject(new Error(`serve.ts exited with ${code}`)));
      });
      const urls = JSON.parse(firstLine) as { anthropicBaseUrl: string; openaiBaseUrl: string };
      expect(urls.openaiBaseUrl).toBe(`${urls.anthropicBaseUrl}/v1`);
      const model = createAnthropicClient({ model: "claude-sonnet-4-5", apiKey: "k", baseUrl: urls.anthropicBaseUrl });
      expect(done(await collect(model.stream(request([userText("hi")])))).message.content).toEqual([
        { type: "text", text: "from the script" },
      ]);
    } finally {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await rm(dir, { recursive: true, force: true });
    }
  });
});
