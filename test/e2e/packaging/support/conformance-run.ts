import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../../../support/agent-process.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../../../support/fake-model/index.js";

// The conformance kit's mandatory checks (as test/e2e/conformance.test.ts makes them against
// dist/), run against an installed program: the npm-installed bin or the standalone binary. Each
// check starts the program afresh, the way an editor does, with only the environment given.

export type InstalledProgram = {
  /** Absolute path of the program to spawn. */
  executable: () => string;
  /** PATH the program runs with (the binary's tests leave node off it). */
  path: () => string;
};

export function conformanceThrough(program: InstalledProgram): void {
  let root: string;
  let model: FakeModelServer;
  const agents: AgentProcess[] = [];

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), "deep-acp-installed-"));
    await mkdir(join(root, "home"));
    await mkdir(join(root, "project"));
    model = await createFakeModelServer({});
  });

  afterAll(async () => {
    for (const agent of agents) await agent.stop();
    await model?.close();
    await rm(root, { recursive: true, force: true });
  });

  const start = async (): Promise<AgentProcess> => {
    const agent = await startAgentProcess({
      executable: program.executable(),
      cwd: join(root, "project"),
      env: {
        PATH: program.path(),
        HOME: join(root, "home"),
        ANTHROPIC_API_KEY: "test-key",
        ANTHROPIC_BASE_URL: model.anthropicBaseUrl,
      },
    });
    agents.push(agent);
    return agent;
  };

  it("writes only JSON-RPC lines, echoes ids and answers a version it speaks", async () => {
    const agent = await start();
    const init = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, 7);
    expect(init.id).toBe(7);
    expect(init.result.protocolVersion).toBe(1);
    expect((await agent.request("no/such/method", {}, "str-id")).id).toBe("str-id");
    expect(init.result.agentInfo.name).toBe("deep-acp");
    for (const line of agent.lines) expect(JSON.parse(line).jsonrpc).toBe("2.0");
  });

  it("requires initialize first, answers unknown methods and bad params with their codes", async () => {
    const agent = await start();
    expect((await agent.request("session/new", { cwd: join(root, "project"), mcpServers: [] })).error?.code).toBe(
      -32600,
    );
    await agent.initialize();
    expect((await agent.request("no/such/method", {})).error?.code).toBe(-32601);
    expect((await agent.request("session/new", { cwd: 42 })).error?.code).toBe(-32602);
    const prompt = { sessionId: "missing", prompt: [{ type: "text", text: "hi" }] };
    expect((await agent.request("session/prompt", prompt)).error?.code).toBe(-32002);
  });

  it("runs a prompt turn with a tool call and streams the answer before the response", async () => {
    const agent = await start();
    await agent.initialize();
    const cwd = join(root, "project");
    model.enqueue(toolTurn("ls", { path: cwd }), textTurn("listed the project"));
    const { result } = await agent.request("session/new", { cwd, mcpServers: [] });
    const response = await agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "what is here?" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    const updates = agent.updates(result.sessionId);
    expect(updates.some((u) => u.sessionUpdate === "tool_call")).toBe(true);
    expect(updates.map((u) => u.content?.text ?? "").join("")).toContain("listed the project");
    expect(model.requests.at(-1)?.lastUserText).toContain("what is here?");
  });

  it("exits 0 when the editor closes stdin", async () => {
    const agent = await start();
    await agent.initialize();
    expect((await agent.stop()).code).toBe(0);
  });
}
