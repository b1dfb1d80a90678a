import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findModel, lookupModel } from "../../../src/model/catalog/catalog.js";
import {
  createModelClient,
  listModelChoices,
  ModelConfigError,
  parseModelSpec,
  resolveModelSpec,
  type StoredCredentials,
} from "../../../src/model/client/resolve.js";
import { createFakeModelServer, textTurn, type FakeModelServer } from "../../support/fake-model/index.js";
import { collect, done, request, userText } from "./helpers.js";

describe("parseModelSpec", () => {
  it("splits on the first colon so Ollama tags survive", () => {
    expect(parseModelSpec("anthropic:claude-sonnet-4-5")).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5",
    });
    expect(parseModelSpec(" ollama:llama3.1:8b ")).toEqual({ provider: "ollama", model: "llama3.1:8b" });
  });

  it("infers the provider of bare catalog model names", () => {
    expect(parseModelSpec("gpt-5-mini")).toEqual({ provider: "openai", model: "gpt-5-mini" });
    expect(parseModelSpec("claude-sonnet-4-5-20250929")).toEqual({
      provider: "anthropic",
      model: "claude-sonnet-4-5-20250929",
    });
  });

  it.each([
    ["", /empty/],
    ["mystery-model", /has no provider.*anthropic, openai, openai-responses, openai-compatible, ollama, google/],
    ["llama3.1:8b", /Unknown model provider "llama3.1".*ollama:llama3.1:8b/],
    ["openai:", /names no model/],
  ])("rejects %j clearly", (text, message) => {
    let error: unknown;
    try {
      parseModelSpec(text);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ModelConfigError);
    expect((error as ModelConfigError).code).toBe("invalid_spec");
    expect((error as Error).message).toMatch(message);
  });
});

describe("resolveModelSpec", () => {
  const keys = { ANTHROPIC_API_KEY: "a", OPENAI_API_KEY: "o" };

  it("prefers --model, then DEEP_ACP_MODEL, then the config default, then keys", () => {
    const env = { ...keys, DEEP_ACP_MODEL: "openai:gpt-4.1" };
    expect(resolveModelSpec({ flag: "ollama:qwen3", env, configDefault: "openai:o3" })).toEqual({
      provider: "ollama",
      model: "qwen3",
      spec: "ollama:qwen3",
      source: "--model flag",
    });
    expect(resolveModelSpec({ env, configDefault: "openai:o3" })).toMatchObject({
      spec: "openai:gpt-4.1",
      source: "DEEP_ACP_MODEL",
    });
    expect(resolveModelSpec({ env: keys, configDefault: "openai:o3" })).toMatchObject({
      spec: "openai:o3",
      source: "~/.deepagents/config.toml [model].default",
    });
    expect(resolveModelSpec({ env: keys })).toMatchObject({
      spec: "anthropic:claude-sonnet-4-5",
      source: "ANTHROPIC_API_KEY",
    });
    expect(resolveModelSpec({ env: { OPENAI_API_KEY: "o" } })).toMatchObject({
      spec: "openai:gpt-5",
      source: "OPENAI_API_KEY",
    });
  });

  it("treats blank values as unset", () => {
    expect(
      resolveModelSpec({ flag: " ", env: { DEEP_ACP_MODEL: "", ANTHROPIC_API_KEY: " ", OPENAI_API_KEY: "o" } }),
    ).toMatchObject({
      spec: "openai:gpt-5",
    });
  });

  it("reports an invalid explicit spec with its source", () => {
    expect(resolveModelSpec({ env: { ...keys, DEEP_ACP_MODEL: "foo:bar" } })).toEqual({
      error: expect.stringMatching(/^DEEP_ACP_MODEL: Unknown model provider "foo"/),
    });
  });

  it("uses OPENAI_COMPATIBLE_MODEL, or says how to name one", () => {
    const env = { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:8000/v1" };
    expect(resolveModelSpec({ env: { ...env, OPENAI_COMPATIBLE_MODEL: "qwen" } })).toMatchObject({
      spec: "openai-compatible:qwen",
      source: "OPENAI_COMPATIBLE_BASE_URL",
    });
    expect(resolveModelSpec({ env })).toEqual({
      error: expect.stringContaining("--model openai-compatible:<model> or set OPENAI_COMPATIBLE_MODEL"),
    });
  });

  it("falls back to stored credentials after every environment variable", () => {
    const credentials: StoredCredentials = { openai: { apiKey: "stored" }, anthropic: { apiKey: "stored" } };
    expect(resolveModelSpec({ env: {}, credentials })).toMatchObject({
      spec: "anthropic:claude-sonnet-4-5",
      source: "stored credentials (anthropic)",
    });
    expect(resolveModelSpec({ env: { OPENAI_API_KEY: "o" }, credentials })).toMatchObject({ source: "OPENAI_API_KEY" });
    expect(resolveModelSpec({ env: {}, credentials: { ollama: { model: "qwen3" } } })).toMatchObject({
      spec: "ollama:qwen3",
      source: "stored credentials (ollama)",
    });
  });

  it("explains what to do when nothing is configured", () => {
    expect(resolveModelSpec({ env: {} })).toEqual({
      error: expect.stringMatching(/No model configured: set ANTHROPIC_API_KEY/),
    });
  });
});

describe("createModelClient", () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await createFakeModelServer();
  });
  afterAll(() => server.close());

  it("builds an Anthropic client from the environment, which wins over stored credentials", async () => {
    server.enqueue(textTurn("from env"));
    const credentials: StoredCredentials = { anthropic: { apiKey: "stored", baseUrl: "http://127.0.0.1:1" } };
    const model = await createModelClient("anthropic:claude-haiku-4-5", {
      env: { ANTHROPIC_API_KEY: "env-key", ANTHROPIC_BASE_URL: `${server.anthropicBaseUrl}/` },
      credentials,
      maxOutputTokens: 1000,
    });
    expect(model).toMatchObject({ id: "anthropic:claude-haiku-4-5", provider: "anthropic", contextWindow: 200_000 });
    const events = await collect(model.stream(request([userText("hi")])));
    expect(done(events).message.content).toEqual([{ type: "text", text: "from env" }]);
    const received = server.requests.at(-1)!;
    expect(received.headers["x-api-key"]).toBe("env-key");
    expect(received.body.max_tokens).toBe(1000);
  });

  it("uses stored credentials when the environment has none", async () => {
    server.enqueue(textTurn("stored"));
    const model = await createModelClient(
      { provider: "openai", model: "gpt-4.1-mini" },
      {
        env: {},
        credentials: { openai: { apiKey: "stored-key", baseUrl: server.openaiBaseUrl } },
        contextWindow: 64_000,
      },
    );
    expect(model.contextWindow).toBe(64_000);
    await collect(model.stream(request([userText("hi")])));
    const received = server.requests.at(-1)!;
    expect(received.headers.authorization).toBe("Bearer stored-key");
    expect(received.body.max_completion_tokens).toBe(16384);
  });

  it("adds /v1 to a bare Ollama server URL", async () => {
    server.enqueue(textTurn("llama"));
    const model = await createModelClient("ollama:llama3.1:8b", { env: { OLLAMA_BASE_URL: server.anthropicBaseUrl } });
    expect(model.supportsImages).toBe(false);
    expect(done(await collect(model.stream(request([userText("hi")])))).message.content).toEqual([
      { type: "text", text: "llama" },
    ]);
    expect(server.requests.at(-1)!.path).toBe("/v1/chat/completions");
  });

  it.each([
    ["anthropic:claude-sonnet-4-5", "ANTHROPIC_API_KEY"],
    ["openai:gpt-5", "OPENAI_API_KEY"],
    ["openai-compatible:qwen", "OPENAI_COMPATIBLE_BASE_URL"],
  ])("throws missing_credentials for %s naming %s", async (spec, variable) => {
    const failure = createModelClient(spec, { env: {} });
    await expect(failure).rejects.toBeInstanceOf(ModelConfigError);
    await expect(failure).rejects.toMatchObject({
      code: "missing_credentials",
      message: expect.stringContaining(variable),
    });
  });

  it("throws invalid_spec for a bad spec", async () => {
    await expect(createModelClient("nope:x", { env: {} })).rejects.toMatchObject({ code: "invalid_spec" });
  });
});

describe("catalog and model choices", () => {
  it("knows model limits, dated snapshots and sensible defaults", () => {
    expect(findModel("anthropic", "claude-sonnet-4-5-20250929")?.model).toBe("claude-sonnet-4-5");
    expect(lookupModel("openai", "gpt-4.1").contextWindow).toBe(1_047_576);
    expect(lookupModel("anthropic", "claude-future-9")).toMatchObject({ contextWindow: 200_000, supportsImages: true });
    expect(lookupModel("openai", "gpt-future")).toMatchObject({ contextWindow: 128_000, supportsImages: true });
    expect(lookupModel("ollama", "qwen3")).toMatchObject({ contextWindow: 128_000, supportsImages: false });
  });

  it("lists catalog models of configured providers, config extras and the current model, without duplicates", () => {
    const choices = listModelChoices({
      env: { ANTHROPIC_API_KEY: "a" },
      configOptions: ["ollama:qwen3", "anthropic:claude-opus-4-1", "not a spec"],
      current: "openai-compatible:local",
    });
    const specs = choices.map((c) => c.spec);
    expect(specs[0]).toBe("anthropic:claude-sonnet-4-5");
    expect(specs).toContain("anthropic:claude-haiku-4-5");
    expect(specs.filter((s) => s === "anthropic:claude-opus-4-1")).toHaveLength(1);
    expect(specs.some((s) => s.startsWith("openai:"))).toBe(false);
    expect(specs.slice(-2)).toEqual(["ollama:qwen3", "openai-compatible:local"]);
    expect(choices[0]).toEqual({
      spec: "anthropic:claude-sonnet-4-5",
      name: "Claude Sonnet 4.5",
      description: "Anthropic · 200K context · $3/$15 per M tokens",
    });
  });

  it("includes OpenAI models with stored credentials and the compatible server's model", () => {
    const specs = listModelChoices({
      env: { OPENAI_COMPATIBLE_BASE_URL: "http://127.0.0.1:9/v1", OPENAI_COMPATIBLE_MODEL: "qwen" },
      credentials: { openai: { apiKey: "k" } },
      configOptions: [],
    }).map((c) => c.spec);
    expect(specs).toContain("openai:gpt-5");
    expect(specs).toContain("openai-compatible:qwen");
    expect(specs.some((s) => s.startsWith("anthropic:"))).toBe(false);
  });
});

describe("openai: picks the Responses API for reasoning models at OpenAI itself", () => {
  let fake: FakeModelServer;
  beforeAll(async () => {
    fake = await createFakeModelServer();
  });
  afterAll(() => fake.close());

  // Requests to api.openai.com go to the fake server instead: the choice must not depend on the host.
  const redirect = (input: string, init: RequestInit) =>
    fetch(input.replace("https://api.openai.com/v1", fake.openaiBaseUrl), init);

  it.each([
    ["openai:gpt-5", {}, "responses"],
    ["openai:o4-mini", {}, "responses"],
    ["openai:gpt-4o", {}, "openai"],
    // A custom base URL may be a proxy without /responses: Chat Completions stays.
    ["openai:gpt-5", { OPENAI_BASE_URL: "https://api.openai.com/v1" }, "openai"],
    ["openai-responses:gpt-4o", { OPENAI_BASE_URL: "https://api.openai.com/v1" }, "responses"],
  ] as const)("%s %j speaks %s", async (spec, extraEnv, api) => {
    fake.reset();
    fake.enqueue(textTurn("ok"));
    const client = await createModelClient(spec, { env: { OPENAI_API_KEY: "k", ...extraEnv }, fetch: redirect });
    const events = await collect(client.stream(request([userText("hi")])));
    expect(done(events).message.content).toEqual([{ type: "text", text: "ok" }]);
    expect(fake.requests[0]!.api).toBe(api);
    // Non-reasoning models get no reasoning settings, which they would reject.
    if (api === "responses") expect("reasoning" in fake.requests[0]!.body).toBe(spec !== "openai-responses:gpt-4o");
  });
});
