// The MANDATORY requirements of the ACP conformance kit (reference/acp-protocol.md §5.1) and the
// advisory ones that cost nothing, checked against the built binary over real stdio.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startAgentProcess, type AgentProcess } from "../support/agent-process.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../support/fake-model/index.js";

let model: FakeModelServer;
let home: string;
let project: string;
let agent: AgentProcess;

beforeAll(async () => {
  model = await createFakeModelServer();
});
afterAll(async () => {
  await model.close();
});
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-e2e-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-e2e-project-"));
});
afterEach(async () => {
  await agent?.stop();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

function start(env: Record<string, string> = {}) {
  agent = undefined as unknown as AgentProcess;
  return startAgentProcess({
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl, ...env },
  }).then((a) => (agent = a));
}

describe("conformance (stdio)", () => {
  it("writes only JSON-RPC lines to stdout and echoes integer and string ids", async () => {
    await start();
    const a = await agent.request("initialize", { protocolVersion: 1 }, 7);
    const b = await agent.request("initialize", { protocolVersion: 1 }, "str-id");
    expect(a.id).toBe(7);
    expect(b.id).toBe("str-id");
    for (const line of agent.lines) {
      const parsed = JSON.parse(line);
      expect(parsed.jsonrpc).toBe("2.0");
      expect("result" in parsed !== "error" in parsed || parsed.method !== undefined).toBe(true);
    }
  });

  it("negotiates version 1 whatever is asked", async () => {
    await start();
    expect((await agent.request("initialize", { protocolVersion: 1 })).result.protocolVersion).toBe(1);
    expect((await agent.request("initialize", { protocolVersion: 65535 })).result.protocolVersion).toBe(1);
  });

  it("requires initialize first, then serves distinct sessions", async () => {
    await start();
    const early = await agent.request("session/new", { cwd: project, mcpServers: [] });
    expect(early.error?.code).toBe(-32600);
    await agent.initialize();
    const one = await agent.request("session/new", { cwd: project, mcpServers: [] });
    const two = await agent.request("session/new", { cwd: project, mcpServers: [] });
    expect(typeof one.result.sessionId).toBe("string");
    expect(one.result.sessionId).not.toBe(two.result.sessionId);
  });

  it("never answers notifications and answers unknown methods with -32601", async () => {
    await start();
    await agent.initialize();
    agent.notify("session/cancel", { sessionId: "nope" });
    agent.notify("_deep-acp/unknown-notification", {});
    const unknown = await agent.request("_vendor/thing", {});
    expect(unknown.error?.code).toBe(-32601);
    const plain = await agent.request("no/such/method", {});
    expect(plain.error?.code).toBe(-32601);
    const responsesWithoutRequests = agent.messages.filter((m) => m.method === undefined && m.id === null);
    expect(responsesWithoutRequests).toEqual([]);
  });

  it("rejects bad params with -32602, unknown sessions with -32002, and keeps serving", async () => {
    await start();
    await agent.initialize();
    expect((await agent.request("session/new", { cwd: 42 })).error?.code).toBe(-32602);
    expect((await agent.request("session/new", { cwd: "relative/dir", mcpServers: [] })).error?.code).toBe(-32602);
    expect(
      (await agent.request("session/prompt", { sessionId: "missing", prompt: [{ type: "text", text: "hi" }] })).error
        ?.code,
    ).toBe(-32002);
    agent.writeRaw("this is not json\n");
    agent.writeRaw('{"foo":"bar"}\n');
    const ok = await agent.request("session/new", { cwd: project, mcpServers: [] });
    expect(typeof ok.result.sessionId).toBe("string");
    for (const m of agent.messages.filter((m) => m.error)) {
      expect(m.error!.message.length).toBeGreaterThan(0);
      expect(m.error!.message).not.toContain("\n");
    }
  });

  it("fails session/new with -32000 and offers auth methods when no model is usable", async () => {
    agent = await startAgentProcess({ env: { HOME: home } });
    const init = await agent.initialize();
    expect(init.result.authMethods.length).toBeGreaterThan(0);
    const response = await agent.request("session/new", { cwd: project, mcpServers: [] });
    expect(response.error?.code).toBe(-32000);
    expect(response.error?.message).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("sends updates only for the prompted session and all before the response", async () => {
    await start();
    await agent.initialize();
    model.enqueue(textTurn("first answer"));
    const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
    const response = await agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    const responseIndex = agent.messages.indexOf(response);
    const turnUpdates = agent.messages.slice(0, responseIndex).filter((m) => m.method === "session/update");
    expect(turnUpdates.every((m) => m.params.sessionId === result.sessionId)).toBe(true);
    expect(turnUpdates.map((m) => m.params.update.content?.text ?? "").join("")).toContain("first answer");
  });

  it("answers a cancelled prompt with `cancelled` and sends nothing after it", async () => {
    await start();
    await agent.initialize();
    model.enqueue({
      parts: [{ type: "text", text: "a very long answer ".repeat(50) }],
      chunkDelayMs: 50,
      wordsPerChunk: 1,
    });
    const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
    const pending = agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "talk" }],
    });
    await agent.waitFor(() => agent.updates(result.sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"));
    agent.notify("session/cancel", { sessionId: result.sessionId });
    const response = await pending;
    expect(response.result.stopReason).toBe("cancelled");
    const count = agent.messages.length;
    await new Promise((r) => setTimeout(r, 300));
    expect(agent.messages.slice(count).filter((m) => m.method === "session/update")).toEqual([]);
    // The session stays usable.
    model.enqueue(textTurn("goodbye"));
    const next = await agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "say goodbye" }],
    });
    expect(next.result.stopReason).toBe("end_turn");
  });

  it("does not call client fs or terminal methods the client did not advertise", async () => {
    await start();
    await agent.initialize({});
    await rm(join(project, "x"), { force: true });
    model.enqueue(
      toolTurn("write_file", { file_path: join(project, "x"), content: "1" }),
      toolTurn("execute", { command: "echo hi" }),
      textTurn("done"),
    );
    const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
    await agent.request("session/prompt", { sessionId: result.sessionId, prompt: [{ type: "text", text: "go" }] });
    const clientCalls = agent.messages.filter(
      (m) => m.method && m.id !== undefined && m.method !== "session/request_permission",
    );
    expect(clientCalls.map((m) => m.method)).toEqual([]);
  });

  it("advertises no boolean config options to clients that did not ask for them", async () => {
    await start();
    await agent.initialize({});
    const { result } = await agent.request("session/new", { cwd: project, mcpServers: [] });
    expect(result.configOptions.every((o: { type: string }) => o.type !== "boolean")).toBe(true);
    for (const option of result.configOptions)
      expect(option.options.some((o: { value: string }) => o.value === option.currentValue)).toBe(true);
  });

  it("accepts _meta trace context and exits 0 when stdin closes", async () => {
    await start();
    const init = await agent.request("initialize", {
      protocolVersion: 1,
      _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    expect(init.result.protocolVersion).toBe(1);
    const exit = await agent.stop();
    expect(exit.code).toBe(0);
  });
});
