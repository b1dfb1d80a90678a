// Subagents the editor can follow, through the built binary: a subagent's tool calls name their task
// call (ours and claude-agent-acp's `_meta` keys), and task() from eval gets a task call of its own.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { CLIENTS } from "../support/fake-editor.js";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";

const suite = useAgentSuite({
  name: "sub",
  prepare: ({ project }) => writeFile(join(project, "a.txt"), "a"),
});

const isSubagent = (request: RecordedRequest) => request.system.includes("You are a subagent");

/** The subagent lists the project once, then answers. */
function subagentTurn(request: RecordedRequest) {
  return request.messages.length === 1 ? toolTurn("ls", { path: suite.project }) : textTurn("sub done");
}

for (const [label, capabilities] of CLIENTS) {
  describe(`subagents with ${label}`, () => {
    const session = () => suite.startSession({ capabilities });
    const calls = (sessionId: string) => suite.agent.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call");

    it("tags a subagent's tool calls with their task call", async () => {
      const sessionId = await session();
      suite.model.setHandler((request) => {
        if (isSubagent(request)) return subagentTurn(request);
        return request.messages.at(-1)!.role === "user"
          ? toolTurn("task", { description: "list the files", subagent_type: "general-purpose" })
          : textTurn("done");
      });
      await suite.agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "delegate" }] });
      const [task, ls] = calls(sessionId);
      expect(task.kind).toBe("think");
      expect(ls._meta).toMatchObject({
        "deep-acp": { parentToolCallId: task.toolCallId },
        claudeCode: { parentToolUseId: task.toolCallId },
      });
    });

    it("gives task() from eval a task call of its own, under the eval", async () => {
      const sessionId = await session();
      suite.model.setHandler((request) => {
        if (isSubagent(request)) return subagentTurn(request);
        return request.messages.at(-1)!.role === "user"
          ? toolTurn("eval", { code: 'await task({ description: "list the files", subagentType: "general-purpose" })' })
          : textTurn("done");
      });
      await suite.agent.request("session/prompt", {
        sessionId,
        prompt: [{ type: "text", text: "delegate from code" }],
      });
      const [evalCall, task, ls] = calls(sessionId);
      // Announced once its arguments were complete, so the first update already carries the code.
      expect(evalCall.rawInput).toEqual({
        code: 'await task({ description: "list the files", subagentType: "general-purpose" })',
      });
      expect(task).toMatchObject({
        kind: "think",
        rawInput: { description: "list the files", subagent_type: "general-purpose" },
        _meta: { claudeCode: { parentToolUseId: evalCall.toolCallId } },
      });
      expect(ls._meta.claudeCode.parentToolUseId).toBe(task.toolCallId);
      const finished = suite.agent
        .updates(sessionId)
        .find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === task.toolCallId && u.status);
      expect(finished.status).toBe("completed");
    });
  });
}
