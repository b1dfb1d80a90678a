// thought_level through the built binary: offered for models that can think, mapped to Anthropic's
// thinking budget, persisted with the session, absent for models without such a setting.
import { describe, expect, it } from "vitest";
import { useAgentSuite, type SuiteAgentOptions } from "../support/agent-suite.js";
import { CLIENTS } from "../support/fake-editor.js";
import { textTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "thought" });

async function start(capabilities: unknown, options: SuiteAgentOptions = {}) {
  const agent = await suite.start(options);
  await agent.initialize(capabilities);
}
const option = (options: any[], id: string) => options.find((o) => o.id === id);

for (const [label, capabilities] of CLIENTS) {
  describe(`thought_level with ${label}`, () => {
    it("is offered for Claude, sets the thinking budget, and survives a restart", async () => {
      await start(capabilities, { env: { DEEP_ACP_MODEL: "anthropic:claude-sonnet-4-5" } });
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const level = option(result.configOptions, "thought_level");
      expect(level).toMatchObject({ category: "thought_level", type: "select", currentValue: "off" });
      expect(level.options.map((o: { value: string }) => o.value)).toEqual(["off", "low", "medium", "high"]);

      const set = await suite.agent.request("session/set_config_option", {
        sessionId: result.sessionId,
        configId: "thought_level",
        value: "high",
      });
      expect(option(set.result.configOptions, "thought_level").currentValue).toBe("high");
      suite.model.enqueue(textTurn("Thought hard."));
      await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "think" }],
      });
      expect(suite.model.requests.at(-1)!.body.thinking).toEqual({ type: "enabled", budget_tokens: 12288 });

      const bad = await suite.agent.request("session/set_config_option", {
        sessionId: result.sessionId,
        configId: "thought_level",
        value: "extreme",
      });
      expect(bad.error!.message).toContain("Invalid params");

      await suite.agent.stop();
      await start(capabilities);
      const resumed = await suite.agent.request("session/resume", {
        sessionId: result.sessionId,
        cwd: suite.project,
        mcpServers: [],
      });
      expect(option(resumed.result.configOptions, "thought_level").currentValue).toBe("high");
      suite.model.enqueue(textTurn("Still thinking hard."));
      await suite.agent.request("session/prompt", {
        sessionId: result.sessionId,
        prompt: [{ type: "text", text: "again" }],
      });
      expect(suite.model.requests.at(-1)!.body.thinking).toEqual({ type: "enabled", budget_tokens: 12288 });
    });
  });
}

describe("thought_level for a model without levels", () => {
  it("is not offered", async () => {
    await start({}, { api: "openai", env: { DEEP_ACP_MODEL: "openai:gpt-4.1" } });
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(option(result.configOptions, "thought_level")).toBeUndefined();
    expect(
      option(result.configOptions, "model").options.find((o: { value: string }) => o.value === "openai:gpt-4.1")
        .description,
    ).toMatch(/ context/);
  });
});
