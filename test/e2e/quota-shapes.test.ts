// The providers' limits in the shapes editors read from the flagship adapters, through the built
// binary, each only for a client that asks: codex-acp's `_account/rate_limits_update` (a JetBrains
// AIR client, or `_meta.rateLimits`), claude-agent-acp's `usage_update._meta["_claude/rateLimit"]`
// (`_meta["_claude/rateLimit"]`), JetBrains' `PromptResponse._meta.quota` (a JetBrains client).
import { expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { limitHeaders, textTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "quota-shapes" });
const AIR = { jetbrains: { air: { version: 1, capabilities: [] } } };

/** A session in a fresh agent initialized with `meta`, and the initialize answer. */
async function open(meta: Record<string, unknown>) {
  await suite.start();
  const init = await suite.agent.initialize({ _meta: meta });
  const sessionId = (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId;
  return { init: init.result, sessionId };
}
/** One turn whose answer carries Anthropic's limit headers: output tokens 95% used, reset in 60 s. */
async function turn(sessionId: string) {
  suite.model.enqueue({ ...textTurn("fine"), headers: limitHeaders("anthropic", { tokensLeft: 4000 }) });
  return (await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "hi" }] })).result;
}
const pushes = () =>
  suite.agent.messages.filter((m) => m.method === "_account/rate_limits_update").map((m) => m.params);
const claudeUpdates = (sessionId: string) =>
  suite.agent.updates(sessionId).filter((u) => u._meta?.["_claude/rateLimit"] !== undefined);

it("a JetBrains AIR client gets _account/rate_limits_update per limit once, and the turn's tokens in _meta.quota", async () => {
  const before = Math.floor(Date.now() / 1000);
  const { init, sessionId } = await open(AIR);
  expect(init.agentCapabilities._meta.rateLimits).toEqual({});
  const response = await turn(sessionId);
  await suite.agent.waitFor(() => pushes().length >= 4);
  const output = pushes().find((p) => p.rateLimits.limitId === "anthropic:output-tokens");
  expect(output).toEqual({
    rateLimits: {
      limitId: "anthropic:output-tokens",
      limitName: "Anthropic API rate limits: Output tokens per window",
      normalModelSlug: null,
      primary: { usedPercent: 95, windowDurationMins: null, resetsAt: expect.any(Number) },
      secondary: null,
      rateLimitReachedType: null,
      planType: null,
    },
  });
  expect(output.rateLimits.primary.resetsAt).toBeGreaterThanOrEqual(before + 55);
  expect(output.rateLimits.primary.resetsAt).toBeLessThanOrEqual(before + 65);
  expect(
    pushes()
      .map((p) => p.rateLimits.limitId)
      .sort(),
  ).toEqual(["anthropic:input-tokens", "anthropic:output-tokens", "anthropic:requests", "anthropic:tokens"].sort());
  // The same limits again (another turn, another session of the connection): nothing more is pushed.
  await turn(sessionId);
  const other = (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId;
  await turn(other);
  expect(pushes()).toHaveLength(4);

  const usage = response.usage;
  const count = {
    totalTokens: usage.totalTokens,
    inputTokens: usage.inputTokens,
    cachedInputTokens: usage.cachedReadTokens ?? 0,
    outputTokens: usage.outputTokens,
    reasoningOutputTokens: 0,
  };
  expect(response._meta.quota).toEqual({
    token_count: count,
    model_usage: [{ model: expect.any(String), token_count: count }],
  });
  expect(response._meta["deep-acp"].userMessageId).toEqual(expect.any(String));
  // The quotas draft's own snapshot is not what this client asked for.
  expect(suite.agent.updates(sessionId).some((u) => u.sessionUpdate === "quota_update")).toBe(false);
});

it("a client that declares _claude/rateLimit gets one usage_update per window whose status or share changed", async () => {
  const { init, sessionId } = await open({ "_claude/rateLimit": true });
  expect(init.agentCapabilities._meta.rateLimits).toBeUndefined();
  await turn(sessionId);
  await suite.agent.waitFor(() => claudeUpdates(sessionId).length >= 4);
  const plain = suite.agent.updates(sessionId).find((u) => u.sessionUpdate === "usage_update" && !u._meta);
  const output = claudeUpdates(sessionId).find((u) => u._meta["_claude/rateLimit"].rateLimitType === "output-tokens");
  expect(output).toEqual({
    sessionUpdate: "usage_update",
    used: plain.used,
    size: plain.size,
    _meta: {
      "_claude/rateLimit": {
        status: "allowed_warning",
        resetsAt: expect.any(Number),
        rateLimitType: "output-tokens",
        utilization: 0.95,
      },
    },
  });
  await turn(sessionId);
  expect(claudeUpdates(sessionId)).toHaveLength(4);
  expect(pushes()).toEqual([]);
});

it("a client that asks for none of them gets none of them", async () => {
  const { init, sessionId } = await open({});
  expect(init.agentCapabilities._meta.rateLimits).toBeUndefined();
  const response = await turn(sessionId);
  expect(response._meta.quota).toBeUndefined();
  expect(claudeUpdates(sessionId)).toEqual([]);
  expect(pushes()).toEqual([]);
});
