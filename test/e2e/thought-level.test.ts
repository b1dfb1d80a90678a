// thought_level through the built binary: offered for models that can think, mapped to Anthropic's
// thinking budget, persisted with the session, absent for models without such a setting.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { ZED_CAPABILITIES } from "../support/fake-editor.js";
import { createFakeModelServer, textTurn, type FakeModelServer } from "../support/fake-model/index.js";

let model: FakeModelServer;
let home: string;
let project: string;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(() => model.close());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-thought-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-thought-project-"));
});
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function start(
  capabilities: unknown,
  env: Record<string, string> = { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
) {
  agent = await startAgentProcess({ env: { HOME: home, ...env } });
  await agent.initialize(capabilities);
}
const option = (options: any[], id: string) => options.find((o) => o.id === id);

for (const [label, capabilities] of [
  ["Zed", ZED_CAPABILITIES],
  ["a client with no capabilities", {}],
] as const) {
  describe(`thought_level with ${label}`, () => {
    it("is offered for Claude, sets the thinking budget, and survives a restart", async () => {
      await start(capabilities, {
        ANTHROPIC_API_KEY: "k",
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
        DEEP_ACP_MODEL: "anthropic:claude-sonnet-4-5",
      });
      const { result } = await agent!.request("session/new", { cwd: project, mcpServers: [] });
      const level = option(result.configOptions, "thought_level");
      expect(level).toMatchObject({ category: "thought_level", type: "select", currentValue: "off" });
      expect(level.options.map((o: { value: string }) => o.value)).toEqual(["off", "low", "medium", "high"]);

      const set = await agent!.request("session/set_config_option", {
        sessionId: result.sessionId,
        configId: "thought_level",
        value: "high",
      });
      expect(option(set.result.configOptions, "thought_level").currentValue).toBe("high");
      model.enqueue(textTurn("Thought hard."));
      await agent!.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "think" }],
      });
      expect(model.requests.at(-1)!.body.thinking).toEqual({ type: "enabled", budget_tokens: 12288 });

      const bad = await agent!.request("session/set_config_option", {
        sessionId: result.sessionId,
        configId: "thought_level",
        value: "extreme",
      });
      expect(bad.error!.message).toContain("Invalid params");

      await agent!.stop();
      await start(capabilities, { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl });
      const resumed = await agent!.request("session/resume", {
        sessionId: result.sessionId,
        cwd: project,
        mcpServers: [],
      });
      expect(option(resumed.result.configOptions, "thought_level").currentValue).toBe("high");
      model.enqueue(textTurn("Still thinking hard."));
      await agent!.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "again" }],
      });
      expect(model.requests.at(-1)!.body.thinking).toEqual({ type: "enabled", budget_tokens: 12288 });
    });
  });
}

describe("thought_level for a model without levels", () => {
  it("is not offered", async () => {
    await start({}, { OPENAI_API_KEY: "k", OPENAI_BASE_URL: model.openaiBaseUrl, DEEP_ACP_MODEL: "openai:gpt-4.1" });
    const { result } = await agent!.request("session/new", { cwd: project, mcpServers: [] });
    expect(option(result.configOptions, "thought_level")).toBeUndefined();
    expect(
      option(result.configOptions, "model").options.find((o: { value: string }) => o.value === "openai:gpt-4.1")
        .description,
    ).toMatch(/ context/);
  });
});
