// v2's idempotencyKey through the built binary on stdio (the transport gives each request a stand-in
// id before the SDK's router sees it): a prompt retried with its key is answered with the original's
// messageId and reaches the model once.
import { expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";

const suite = useAgentSuite({ name: "v2-idempotency" });

it("a session/prompt sent twice with one idempotencyKey is inserted once and answered alike", async () => {
  const agent = await suite.start();
  const init = await agent.request("initialize", {
    protocolVersion: 2,
    info: { name: "e2e-v2", version: "1.0.0" },
    capabilities: {},
  });
  expect(init.result.protocolVersion).toBe(2);
  const { sessionId } = (await agent.request("session/new", { cwd: suite.project })).result;
  suite.model.setHandler(() => textTurn("once"));
  const prompt = { sessionId, prompt: [{ type: "text", text: "go" }], idempotencyKey: "retry-1" };
  const [first, retry] = await Promise.all([
    agent.request("session/prompt", prompt),
    agent.request("session/prompt", prompt),
  ]);
  expect(first.result.messageId).toEqual(expect.any(String));
  expect(retry.result).toEqual(first.result);
  const later = await agent.request("session/prompt", prompt);
  expect(later.result).toEqual(first.result);
  const idle = () =>
    agent.updates(sessionId).filter((u) => u.sessionUpdate === "state_update" && u.state === "idle").length;
  await pollUntil(() => idle() >= 1, "the turn's idle state");
  expect(suite.model.requests).toHaveLength(1);
  expect(agent.updates(sessionId).filter((u) => u.sessionUpdate === "user_message")).toHaveLength(1);
});
