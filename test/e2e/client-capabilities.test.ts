// `clientCapabilities.subagents` and `plan` reach the session through the built binary. The SDK's
// stable entry point drops both when it parses `initialize` (only `./unstable` keeps them;
// claude-agent-acp 0.79 and codex-acp 2.1.1 shipped that bug): with either dropped, a task shows no
// child session and the todo list is the legacy `plan`.
import { expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { limitHeaders, textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "client-capabilities" });

it("subagents and plan declared in initialize give child sessions and plan operations", async () => {
  const sessionId = await suite.startSession({ capabilities: { subagents: {}, plan: {} } });
  await suite.agent.request("session/set_mode", { sessionId, modeId: "bypass" });
  suite.model.setHandler((request) => {
    if (request.system.includes("You are a subagent")) return textTurn("child done");
    const steps = [
      toolTurn("write_todos", { todos: [{ content: "Step one", status: "in_progress" }] }),
      toolTurn("task", { description: "look around", subagent_type: "general-purpose" }),
    ];
    return steps[(request.messages.length - 1) / 2] ?? textTurn("done");
  });
  const response = await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "go" }] });
  expect(response.result.stopReason).toBe("end_turn");
  const kinds = suite.agent.updates(sessionId).map((u) => u.sessionUpdate as string);
  expect(kinds).toContain("plan_update");
  expect(kinds).not.toContain("plan");
  expect(kinds).toContain("subagent_update");
});

it("a client that reads quota_update gets the known quota when a session starts, before its first turn", async () => {
  await suite.start();
  await suite.agent.initialize({ _meta: { quota: {} } });
  const first = (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId;
  suite.model.enqueue({ ...textTurn("fine"), headers: limitHeaders("anthropic", { tokensLeft: 4000 }) });
  await suite.agent.request("session/prompt", { sessionId: first, prompt: [{ type: "text", text: "hi" }] });
  const told = suite.agent.updates(first).filter((u) => u.sessionUpdate === "quota_update");
  expect(told).toHaveLength(1);
  const second = (await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId;
  const atStart = () => suite.agent.updates(second).filter((u) => u.sessionUpdate === "quota_update");
  await suite.agent.waitFor(() => atStart().length > 0);
  expect(atStart()[0].pools).toEqual(told[0].pools);
  expect(suite.model.requests).toHaveLength(1);
});
