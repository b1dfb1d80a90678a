// The same scripted turn through the built binary for every provider, each against a fake server
// speaking that provider's wire format: a 429 then success, thinking, text, a tool call, an image in
// the prompt, usage; and a 500 that outlasts the retries.
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, mkdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentProcess } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import type { FakeApi } from "../support/fake-model/index.js";

let keysDir: string;
let serviceAccountFile: string;

// A 1x1 PNG.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
const FAST_RETRY = { "retry-after-ms": "1" };

type Case = {
  provider: string;
  spec: string;
  api: FakeApi;
  env: () => Record<string, string>;
  path: RegExp;
  auth: (headers: Record<string, string>) => string | undefined;
};

const bearer = (headers: Record<string, string>) => headers.authorization?.replace(/^Bearer /, "");
const chat = (provider: string, keyVar: string | undefined, baseVar: string, modelName: string): Case => ({
  provider,
  spec: `${provider}:${modelName}`,
  api: "openai",
  env: () => ({ ...(keyVar && { [keyVar]: "test-key" }), [baseVar]: `${suite.model.origin}/v1` }),
  path: /^\/v1\/chat\/completions$/,
  auth: keyVar ? bearer : () => "test-key",
});

const CASES: Case[] = [
  {
    provider: "anthropic",
    spec: "anthropic:claude-sonnet-4-5",
    api: "anthropic",
    env: () => ({ ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: suite.model.origin }),
    path: /^\/v1\/messages$/,
    auth: (h) => h["x-api-key"],
  },
  chat("openai", "OPENAI_API_KEY", "OPENAI_BASE_URL", "gpt-4o"),
  {
    provider: "openai-responses",
    spec: "openai-responses:gpt-5",
    api: "responses",
    env: () => ({ OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `${suite.model.origin}/v1` }),
    path: /^\/v1\/responses$/,
    auth: bearer,
  },
  {
    provider: "google",
    spec: "google:gemini-2.5-flash",
    api: "gemini",
    env: () => ({ GEMINI_API_KEY: "test-key", GOOGLE_BASE_URL: suite.model.origin }),
    path: /^\/v1beta\/models\/gemini-2\.5-flash:streamGenerateContent$/,
    auth: (h) => h["x-goog-api-key"],
  },
  {
    provider: "vertex",
    spec: "vertex:gemini-2.5-flash",
    api: "gemini",
    env: () => ({
      GOOGLE_APPLICATION_CREDENTIALS: serviceAccountFile,
      GOOGLE_CLOUD_PROJECT: "proj-1",
      GOOGLE_CLOUD_LOCATION: "us-central1",
      GOOGLE_VERTEX_BASE_URL: suite.model.origin,
      METADATA_SERVER_DETECTION: "none",
    }),
    path: /^\/v1\/projects\/proj-1\/locations\/us-central1\/publishers\/google\/models\/gemini-2\.5-flash:streamGenerateContent$/,
    // A self-signed service-account JWT: header.payload.signature.
    auth: (h) => (/^Bearer [\w-]+\.[\w-]+\.[\w-]+$/.test(h.authorization ?? "") ? "test-key" : undefined),
  },
  {
    provider: "bedrock",
    spec: "bedrock:us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    api: "bedrock",
    env: () => ({
      AWS_ACCESS_KEY_ID: "AKIDTEST",
      AWS_SECRET_ACCESS_KEY: "secret",
      AWS_REGION: "us-east-1",
      AWS_ENDPOINT_URL_BEDROCK_RUNTIME: suite.model.origin,
      AWS_EC2_METADATA_DISABLED: "true",
    }),
    path: /^\/model\/us\.anthropic\.claude-sonnet-4-5-20250929-v1%3A0\/converse-stream$/,
    auth: (h) =>
      /^AWS4-HMAC-SHA256 Credential=AKIDTEST\/\d{8}\/us-east-1\/bedrock\/aws4_request/.test(h.authorization ?? "")
        ? "test-key"
        : undefined,
  },
  {
    provider: "azure",
    spec: "azure:my-gpt-4o",
    api: "openai",
    env: () => ({ AZURE_OPENAI_ENDPOINT: suite.model.origin, AZURE_OPENAI_API_KEY: "test-key" }),
    path: /^\/openai\/deployments\/my-gpt-4o\/chat\/completions$/,
    auth: (h) => h["api-key"],
  },
  chat("openrouter", "OPENROUTER_API_KEY", "OPENROUTER_BASE_URL", "anthropic/claude-sonnet-4.5"),
  chat("groq", "GROQ_API_KEY", "GROQ_BASE_URL", "openai/gpt-oss-120b"),
  chat("mistral", "MISTRAL_API_KEY", "MISTRAL_BASE_URL", "mistral-medium-latest"),
  chat("deepseek", "DEEPSEEK_API_KEY", "DEEPSEEK_BASE_URL", "deepseek-chat"),
  chat("together", "TOGETHER_API_KEY", "TOGETHER_BASE_URL", "meta-llama/Llama-3.3-70B-Instruct-Turbo"),
  chat("lmstudio", undefined, "LMSTUDIO_BASE_URL", "qwen3-coder"),
  chat("vllm", "VLLM_API_KEY", "VLLM_BASE_URL", "Qwen/Qwen3-Coder"),
  chat("openai-compatible", "OPENAI_COMPATIBLE_API_KEY", "OPENAI_COMPATIBLE_BASE_URL", "local-model"),
  chat("ollama", undefined, "OLLAMA_BASE_URL", "qwen3"),
];

beforeAll(async () => {
  keysDir = await mkdtemp(join(tmpdir(), "deep-acp-providers-keys-"));
  const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  serviceAccountFile = join(keysDir, "service-account.json");
  await writeFile(
    serviceAccountFile,
    JSON.stringify({
      type: "service_account",
      project_id: "proj-1",
      private_key_id: "key-1",
      private_key: privateKey.export({ type: "pkcs8", format: "pem" }),
      client_email: "deep-acp-test@proj-1.iam.gserviceaccount.com",
      client_id: "1",
      token_uri: "https://oauth2.googleapis.com/token",
    }),
  );
});
afterAll(() => rm(keysDir, { recursive: true, force: true }));

const suite = useAgentSuite({
  name: "providers",
  // Every model takes images here, also those the catalogue lists as text-only (an override test of its own).
  async prepare({ home }) {
    await mkdir(join(home, ".deepagents"), { recursive: true });
    await writeFile(
      join(home, ".deepagents", "config.toml"),
      CASES.map((c) => `[model.catalog."${c.spec}"]\nsupports_images = true\n`).join("\n"),
    );
  },
});

async function start(c: Case): Promise<{ agent: AgentProcess; sessionId: string }> {
  suite.model.setChatUsageOnFinish(c.provider === "mistral");
  const agent = await suite.start({ api: "none", env: c.env(), args: ["--model", c.spec] });
  await agent.initialize({});
  const created = await agent.request("session/new", { cwd: suite.project, mcpServers: [] });
  expect(created.error, agent.stderr).toBeUndefined();
  return { agent, sessionId: created.result.sessionId };
}

const texts = (updates: any[], kind: string) =>
  updates
    .filter((u) => u.sessionUpdate === kind)
    .map((u) => u.content.text)
    .join("");

describe.each(CASES)("provider $provider", (c) => {
  it("runs the scripted turn: 429 then success, thinking, text, a tool call, an image, usage", async () => {
    const file = join(suite.project, "notes.txt");
    await writeFile(file, "the secret word is avocado\n");
    suite.model.enqueue(
      { parts: [], httpError: { status: 429, headers: FAST_RETRY } },
      {
        parts: [
          { type: "thinking", text: "I should read the notes file first." },
          { type: "text", text: "Let me look." },
          { type: "tool_call", name: "read_file", input: { file_path: file } },
        ],
        usage: { input: 1200, output: 40 },
      },
      { parts: [{ type: "text", text: "The secret word is avocado." }], usage: { input: 1500, output: 12 } },
    );
    const { agent, sessionId } = await start(c);
    const response = await agent.request("session/prompt", {
      sessionId,
      prompt: [
        { type: "text", text: "What does notes.txt say? Also look at this pixel." },
        { type: "image", mimeType: "image/png", data: PIXEL },
      ],
    });
    expect(response.error, agent.stderr).toBeUndefined();
    expect(response.result.stopReason).toBe("end_turn");

    const requests = suite.model.requests;
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      expect(request.api).toBe(c.api);
      expect(request.path).toMatch(c.path);
      expect(c.auth(request.headers)).toBe("test-key");
    }
    if (c.provider === "azure") expect(requests[0]!.query).toBe("api-version=2024-10-21");
    if (c.api === "gemini") expect(requests[0]!.query).toBe("alt=sse");
    // The retried request is the same request.
    expect(requests[1]!.body).toEqual(requests[0]!.body);
    const first = requests[1]!;
    expect(first.lastUserText).toContain("What does notes.txt say?");
    expect(first.messages.find((m) => m.role === "user")?.images).toBe(1);
    expect(first.toolNames).toContain("read_file");
    // The tool result went back with the call it answers.
    const second = requests[2]!;
    const call = second.messages.find((m) => m.role === "assistant" && m.toolCalls)?.toolCalls?.[0];
    expect(call?.name).toBe("read_file");
    expect(call?.input).toEqual({ file_path: file });
    expect(second.messages.find((m) => m.role === "tool")?.text).toContain("avocado");
    // Reasoning state each API needs back rides along.
    const sent = JSON.stringify(second.body);
    if (c.api === "anthropic")
      expect(second.body.messages[1].content[0]).toMatchObject({
        type: "thinking",
        signature: expect.stringMatching(/^fake-sig-/),
      });
    if (c.api === "responses") {
      expect(second.body.input.find((item: any) => item.type === "reasoning")).toMatchObject({
        encrypted_content: expect.stringMatching(/^enc-/),
      });
      expect(second.body).toMatchObject({
        store: false,
        include: ["reasoning.encrypted_content"],
        reasoning: { summary: "auto" },
      });
    }
    if (c.api === "gemini") expect(sent).toContain('"thoughtSignature":"fake-sig-');
    if (c.api === "bedrock") {
      // Claude on Bedrock keeps prompt caching and its signed thinking.
      expect(second.body.system.at(-1)).toEqual({ cachePoint: { type: "default" } });
      expect(second.body.messages.at(-1).content.at(-1)).toEqual({ cachePoint: { type: "default" } });
      expect(sent).toMatch(
        /"reasoningContent":\{"reasoningText":\{"text":"I should read the notes file first\.","signature":"fake-sig-/,
      );
    }

    const updates = agent.updates(sessionId);
    expect(texts(updates, "agent_thought_chunk")).toContain("I should read the notes file first.");
    expect(texts(updates, "agent_message_chunk")).toContain("The secret word is avocado.");
    const toolUpdates = updates.filter(
      (u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update",
    );
    expect(toolUpdates.some((u) => u.status === "completed")).toBe(true);
    const usage = updates.filter((u) => u.sessionUpdate === "usage_update");
    expect(usage.length).toBeGreaterThan(0);
    expect(usage.at(-1).used).toBeGreaterThan(0);
  });

  it("gives up after its retries on a persistent 500, with the provider's error", async () => {
    for (let i = 0; i < 5; i++) suite.model.enqueue({ parts: [], httpError: { status: 500, headers: FAST_RETRY } });
    const { agent, sessionId } = await start(c);
    const response = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(suite.model.requests).toHaveLength(5);
    const shown = JSON.stringify([response, agent.updates(sessionId)]);
    expect(shown).toMatch(/500|Internal/);
  });
});

describe("fallback models", () => {
  it("answers with the next [model].fallbacks entry when the model is rate-limited past its retries, and tells the editor", async () => {
    await writeFile(
      join(suite.home, ".deepagents", "config.toml"),
      `[model]\nfallbacks = ["azure:missing", "google:gemini-2.5-flash"]\n`,
    );
    for (let i = 0; i < 5; i++) suite.model.enqueue({ parts: [], httpError: { status: 429, headers: FAST_RETRY } });
    suite.model.enqueue({ parts: [{ type: "text", text: "Gemini here." }] });
    const anthropic = CASES.find((c) => c.provider === "anthropic")!;
    const google = CASES.find((c) => c.provider === "google")!;
    const { agent, sessionId } = await start({ ...anthropic, env: () => ({ ...anthropic.env(), ...google.env() }) });
    const response = await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] });
    expect(response.result?.stopReason, JSON.stringify(response)).toBe("end_turn");
    expect(suite.model.requests.map((r) => r.api)).toEqual([
      "anthropic",
      "anthropic",
      "anthropic",
      "anthropic",
      "anthropic",
      "gemini",
    ]);
    const updates = agent.updates(sessionId);
    expect(texts(updates, "agent_message_chunk")).toContain("Gemini here.");
    const shown = JSON.stringify(updates);
    expect(shown).toContain("Fallback model azure:missing cannot be used");
    expect(shown).toMatch(
      /anthropic:claude-sonnet-4-5 is unavailable \(.*429.*\); google:gemini-2\.5-flash is answering instead/,
    );
  });
});
