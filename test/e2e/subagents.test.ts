// Subagents the editor can follow, through the built binary: a subagent's tool calls name their task
// call (ours and claude-agent-acp's `_meta` keys), and task() from eval gets a task call of its own.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { ZED_CAPABILITIES } from "../support/fake-editor.js";
import {
  createFakeModelServer,
  textTurn,
  toolTurn,
  type FakeModelServer,
  type RecordedRequest,
} from "../support/fake-model/index.js";

let model: FakeModelServer;
let home: string;
let project: string;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(() => model.close());
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-sub-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-sub-project-"));
  await writeFile(join(project, "a.txt"), "a");
});
afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  model.setHandler(undefined);
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

const isSubagent = (request: RecordedRequest) => request.system.includes("You are a subagent");

/** The subagent lists the project once, then answers. */
function subagentTurn(request: RecordedRequest) {
  return request.messages.length === 1 ? toolTurn("ls", { path: project }) : textTurn("sub done");
}

for (const [label, capabilities] of [
  ["Zed", ZED_CAPABILITIES],
  ["a client with no capabilities", {}],
] as const) {
  describe(`subagents with ${label}`, () => {
    async function session() {
      agent = await startAgentProcess({
        env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
      });
      await agent.initialize(capabilities);
      const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
      return result.sessionId as string;
    }
    const calls = (sessionId: string) => agent!.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call");

    it("tags a subagent's tool calls with their task call", async () => {
      const sessionId = await session();
      model.setHandler((request) => {
        if (isSubagent(request)) return subagentTurn(request);
        return request.messages.at(-1)!.role === "user"
          ? toolTurn("task", { description: "list the files", subagent_type: "general-purpose" })
          : textTurn("done");
      });
      await agent!.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "delegate" }] });
      const [task, ls] = calls(sessionId);
      expect(task.kind).toBe("think");
      expect(ls._meta).toMatchObject({
        "deep-acp": { parentToolCallId: task.toolCallId },
        claudeCode: { parentToolUseId: task.toolCallId },
      });
    });

    it("gives task() from eval a task call of its own, under the eval", async () => {
      const sessionId = await session();
      model.setHandler((request) => {
        if (isSubagent(request)) return subagentTurn(request);
        return request.messages.at(-1)!.role === "user"
          ? toolTurn("eval", { code: 'await task({ description: "list the files", subagentType: "general-purpose" })' })
          : textTurn("done");
      });
      await agent!.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "delegate from code" }] });
      const [evalCall, task, ls] = calls(sessionId);
      expect(evalCall.rawInput).toEqual({});
      expect(task).toMatchObject({
        kind: "think",
        rawInput: { description: "list the files", subagent_type: "general-purpose" },
        _meta: { claudeCode: { parentToolUseId: evalCall.toolCallId } },
      });
      expect(ls._meta.claudeCode.parentToolUseId).toBe(task.toolCallId);
      const finished = agent!
        .updates(sessionId)
        .find((u) => u.sessionUpdate === "tool_call_update" && u.toolCallId === task.toolCallId && u.status);
      expect(finished.status).toBe("completed");
    });
  });
}
