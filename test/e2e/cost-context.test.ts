// Cost and context through the built binary: usage_update carries the session's cumulative cost from
// the price table, unknown models show none, /cost and /context report, the spend limit stops a turn
// with a clear message, and the spend survives a restart.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { CLIENTS } from "../support/fake-editor.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "cost" });

/** 1,000 input tokens at $3/M and 500 output tokens at $15/M: $0.0105 per request. */
const USAGE = { usage: { input: 1000, output: 500 } };

/** Starts the agent with HOME and `env` only, and `config` as config.toml when given. */
async function start(capabilities: unknown, env: Record<string, string>, config?: string) {
  if (config) {
    await mkdir(join(suite.home, ".deepagents"), { recursive: true });
    await writeFile(join(suite.home, ".deepagents", "config.toml"), config);
  }
  const agent = await suite.start({ api: "none", env });
  await agent.initialize(capabilities);
}
const claudeEnv = () => ({ ...suite.env(), DEEP_ACP_MODEL: "anthropic:claude-sonnet-4-5" });
const prompt = (sessionId: string, text: string) =>
  suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });
const costs = (sessionId: string) =>
  suite.agent
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === "usage_update")
    .map((u) => u.cost);
async function reply(sessionId: string, text: string): Promise<string> {
  const before = suite.agent.updates(sessionId).length;
  await prompt(sessionId, text);
  return suite.agent
    .updates(sessionId)
    .slice(before)
    .filter((u) => u.sessionUpdate === "agent_message_chunk")
    .map((u) => u.content.text)
    .join("");
}

for (const [label, capabilities] of CLIENTS) {
  describe(`cost and context with ${label}`, () => {
    it("reports the cumulative cost in usage_update and /cost, keeps it across a restart, and shows /context", async () => {
      await start(capabilities, claudeEnv());
      const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
      const sessionId = result.sessionId as string;
      suite.model.enqueue(textTurn("one", USAGE));
      await prompt(sessionId, "first");
      suite.model.enqueue(textTurn("two", USAGE));
      await prompt(sessionId, "second");
      expect(costs(sessionId)).toEqual([
        { amount: 0.0105, currency: "USD" },
        { amount: 0.021, currency: "USD" },
      ]);
      expect(await reply(sessionId, "/cost")).toContain(
        "- Spent: **$0.0210**\n- Model requests: 2 (2,000 input and 1,000 output tokens)",
      );

      const context = await reply(sessionId, "/context");
      expect(context).toContain("| part | tokens | of window |");
      expect(context).toMatch(/\| Built-in tool schemas \(\d+ tools\) \| [\d,]+ \| [\d.]+% \|/);
      expect(context).toContain("| Conversation (4 messages) |");
      expect(context).toContain("The model reported 1,500 tokens for the last request.");

      await suite.agent.stop();
      await start(capabilities, claudeEnv());
      await suite.agent.request("session/resume", { sessionId, cwd: suite.project, mcpServers: [] });
      expect(await reply(sessionId, "/cost")).toContain("- Spent: **$0.0210**");
    });
  });
}

describe("spend limit", () => {
  it("stops the turn that reaches it with a clear message, and the next turns before any request", async () => {
    await start({}, claudeEnv(), "[cost]\nmax_session_usd = 0.015\n");
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    const sessionId = result.sessionId as string;
    suite.model.enqueue(textTurn("cheap", USAGE));
    await prompt(sessionId, "first");
    suite.model.enqueue(toolTurn("ls", { path: suite.project }, USAGE), textTurn("never sent", USAGE));
    const before = suite.model.requests.length;
    const text = await reply(sessionId, "second");
    expect(suite.model.requests.length).toBe(before + 1);
    expect(text).toBe(
      "Spend limit reached: this session has cost $0.0210 of its $0.0150 limit ([cost] max_session_usd in config.toml). The turn stops here; raise the limit or start a new session to continue.",
    );
    expect(await reply(sessionId, "third")).toMatch(/^Spend limit reached/);
    expect(suite.model.requests.length).toBe(before + 1);
  });
});

describe("a model without prices", () => {
  it("shows no cost rather than a wrong one", async () => {
    await start(
      {},
      { OPENAI_COMPATIBLE_BASE_URL: suite.model.openaiBaseUrl, DEEP_ACP_MODEL: "openai-compatible:my-local-model" },
    );
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    suite.model.enqueue(textTurn("hi", USAGE));
    await prompt(result.sessionId, "hi");
    expect(costs(result.sessionId)).toEqual([undefined]);
    expect(await reply(result.sessionId, "/cost")).toContain(
      "- Spent: unknown (1 of 1 requests used a model without prices)",
    );
  });
});
