// The MANDATORY requirements of the ACP conformance kit (reference/acp-protocol.md §5.1) and the
// advisory ones that cost nothing, checked against the built binary over real stdio.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";

const suite = useAgentSuite({ name: "e2e" });

describe("conformance (stdio)", () => {
  it("writes only JSON-RPC lines to stdout and echoes integer and string ids", async () => {
    await suite.start();
    const a = await suite.agent.request("initialize", { protocolVersion: 1 }, 7);
    const b = await suite.agent.request("initialize", { protocolVersion: 1 }, "str-id");
    expect(a.id).toBe(7);
    expect(b.id).toBe("str-id");
    for (const line of suite.agent.lines) {
      const parsed = JSON.parse(line);
      expect(parsed.jsonrpc).toBe("2.0");
      expect("result" in parsed !== "error" in parsed || parsed.method !== undefined).toBe(true);
    }
  });

  it("negotiates version 1 whatever is asked", async () => {
    await suite.start();
    expect((await suite.agent.request("initialize", { protocolVersion: 1 })).result.protocolVersion).toBe(1);
    expect((await suite.agent.request("initialize", { protocolVersion: 65535 })).result.protocolVersion).toBe(1);
  });

  it("requires initialize first, then serves distinct sessions", async () => {
    await suite.start();
    const early = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(early.error?.code).toBe(-32600);
    await suite.agent.initialize();
    const one = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    const two = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(typeof one.result.sessionId).toBe("string");
    expect(one.result.sessionId).not.toBe(two.result.sessionId);
  });

  it("never answers notifications and answers unknown methods with -32601", async () => {
    await suite.start();
    await suite.agent.initialize();
    suite.agent.notify("session/cancel", { sessionId: "nope" });
    suite.agent.notify("_deep-acp/unknown-notification", {});
    const unknown = await suite.agent.request("_vendor/thing", {});
    expect(unknown.error?.code).toBe(-32601);
    const plain = await suite.agent.request("no/such/method", {});
    expect(plain.error?.code).toBe(-32601);
    const responsesWithoutRequests = suite.agent.messages.filter((m) => m.method === undefined && m.id === null);
    expect(responsesWithoutRequests).toEqual([]);
  });

  it("rejects bad params with -32602, unknown sessions with -32002, and keeps serving", async () => {
    await suite.start();
    await suite.agent.initialize();
    expect((await suite.agent.request("session/new", { cwd: 42 })).error?.code).toBe(-32602);
    expect((await suite.agent.request("session/new", { cwd: "relative/dir", mcpServers: [] })).error?.code).toBe(
      -32602,
    );
    expect(
      (await suite.agent.request("session/prompt", { sessionId: "missing", prompt: [{ type: "text", text: "hi" }] }))
        .error?.code,
    ).toBe(-32002);
    suite.agent.writeRaw("this is not json\n");
    suite.agent.writeRaw('{"foo":"bar"}\n');
    const ok = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(typeof ok.result.sessionId).toBe("string");
    for (const m of suite.agent.messages.filter((m) => m.error)) {
      expect(m.error!.message.length).toBeGreaterThan(0);
      expect(m.error!.message).not.toContain("\n");
    }
  });

  it("fails session/new with -32000 and offers auth methods when no model is usable", async () => {
    await suite.start({ api: "none" });
    const init = await suite.agent.initialize();
    expect(init.result.authMethods.length).toBeGreaterThan(0);
    const response = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(response.error?.code).toBe(-32000);
    expect(response.error?.message).toMatch(/ANTHROPIC_API_KEY/);
  });

  it("sends updates only for the prompted session and all before the response", async () => {
    await suite.start();
    await suite.agent.initialize();
    suite.model.enqueue(textTurn("first answer"));
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    const response = await suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "hi" }],
    });
    expect(response.result.stopReason).toBe("end_turn");
    const responseIndex = suite.agent.messages.indexOf(response);
    const turnUpdates = suite.agent.messages.slice(0, responseIndex).filter((m) => m.method === "session/update");
    expect(turnUpdates.every((m) => m.params.sessionId === result.sessionId)).toBe(true);
    expect(turnUpdates.map((m) => m.params.update.content?.text ?? "").join("")).toContain("first answer");
  });

  it("answers a cancelled prompt with `cancelled` and sends nothing after it", async () => {
    await suite.start();
    await suite.agent.initialize();
    suite.model.enqueue({
      parts: [{ type: "text", text: "a very long answer ".repeat(50) }],
      chunkDelayMs: 50,
      wordsPerChunk: 1,
    });
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    const pending = suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "talk" }],
    });
    await suite.agent.waitFor(() =>
      suite.agent.updates(result.sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"),
    );
    suite.agent.notify("session/cancel", { sessionId: result.sessionId });
    const response = await pending;
    expect(response.result.stopReason).toBe("cancelled");
    const count = suite.agent.messages.length;
    // Not a wait for something: a quiet period in which a chunk still streaming from the model would
    // show up if the cancelled turn had gone on.
    await new Promise((r) => setTimeout(r, 300));
    expect(suite.agent.messages.slice(count).filter((m) => m.method === "session/update")).toEqual([]);
    // The session stays usable.
    suite.model.enqueue(textTurn("goodbye"));
    const next = await suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "say goodbye" }],
    });
    expect(next.result.stopReason).toBe("end_turn");
  });

  it("does not call client fs or terminal methods the client did not advertise", async () => {
    await suite.start();
    await suite.agent.initialize({});
    await rm(join(suite.project, "x"), { force: true });
    suite.model.enqueue(
      toolTurn("write_file", { file_path: join(suite.project, "x"), content: "1" }),
      toolTurn("execute", { command: "echo hi" }),
      textTurn("done"),
    );
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    await suite.agent.request("session/prompt", {
      sessionId: result.sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    const clientCalls = suite.agent.messages.filter(
      (m) => m.method && m.id !== undefined && m.method !== "session/request_permission",
    );
    expect(clientCalls.map((m) => m.method)).toEqual([]);
  });

  it("advertises no boolean config options to clients that did not ask for them", async () => {
    await suite.start();
    await suite.agent.initialize({});
    const { result } = await suite.agent.request("session/new", { cwd: suite.project, mcpServers: [] });
    expect(result.configOptions.every((o: { type: string }) => o.type !== "boolean")).toBe(true);
    for (const option of result.configOptions)
      expect(option.options.some((o: { value: string }) => o.value === option.currentValue)).toBe(true);
  });

  it("accepts _meta trace context and exits 0 when stdin closes", async () => {
    await suite.start();
    const init = await suite.agent.request("initialize", {
      protocolVersion: 1,
      _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
    });
    expect(init.result.protocolVersion).toBe(1);
    const exit = await suite.agent.stop();
    expect(exit.code).toBe(0);
  });
});
