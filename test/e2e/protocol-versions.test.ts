// Subagent sessions, plan operations and ACP v2 through the built binary, driven by the SDK's own v1
// and v2 clients over real stdio, every line the agent writes checked against the SDK's schema for the
// negotiated version.
import * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { BINARY } from "../support/agent-process.js";
import { ZED_CAPABILITIES } from "../support/fake-editor.js";
import { textTurn, toolTurn, type FakeTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { createSchemaCheck, type ProtocolVersion } from "../support/schema-check.js";

const suite = useAgentSuite({ name: "versions" });

/** The binary on stdio, as a message stream whose every message is checked against the schema. */
function spawnAgent(version: ProtocolVersion) {
  const child = spawn(process.execPath, [BINARY], {
    env: { PATH: process.env.PATH, ...suite.env() },
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const check = createSchemaCheck(version);
  let buffer = "";
  let cancelled = false;
  const readable = new ReadableStream<unknown>({
    cancel: () => void (cancelled = true),
    start(controller) {
      child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
        buffer += chunk;
        for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
          const message = JSON.parse(buffer.slice(0, i)) as unknown;
          buffer = buffer.slice(i + 1);
          check.fromAgent(message);
          if (!cancelled) controller.enqueue(message);
        }
      });
      child.stdout.on("end", () => cancelled || controller.close());
    },
  });
  const writable = new WritableStream<unknown>({
    write(message) {
      check.fromClient(message);
      child.stdin.write(`${JSON.stringify(message)}\n`);
    },
  });
  const exited = new Promise<number | null>((resolve) => child.on("exit", resolve));
  return {
    stream: { readable, writable },
    check,
    stderr: () => stderr,
    async stop() {
      child.stdin.end();
      expect(await exited).toBe(0);
      check.assertValid();
    },
  };
}

const isSubagent = (request: RecordedRequest) => request.system.includes("You are a subagent");
/** The parent keeps a todo list and delegates once; the subagent answers. */
const script = (request: RecordedRequest): FakeTurn => {
  if (isSubagent(request)) return textTurn("child report");
  if (request.messages.length === 1)
    return toolTurn("write_todos", { todos: [{ content: "delegate", status: "in_progress" }] });
  if (request.messages.length === 3)
    return toolTurn("task", { description: "look around", subagent_type: "general-purpose" });
  return textTurn("parent done");
};

type V1Clients = ReadonlyArray<readonly [string, acp.ClientCapabilities, boolean]>;
const V1_CLIENTS: V1Clients = [
  ["Zed's capabilities with subagents and plan", { ...ZED_CAPABILITIES, subagents: {}, plan: {} }, true],
  ["Zed's capabilities as they are", ZED_CAPABILITIES, false],
  ["a client that advertises nothing", {}, false],
];

describe("through the binary", () => {
  for (const [label, capabilities, opted] of V1_CLIENTS) {
    it(`ACP v1 with ${label}`, async () => {
      suite.model.setHandler(script);
      const agent = spawnAgent(1);
      const updates: acp.SessionNotification[] = [];
      const client = acp
        .client({ name: "e2e-v1" })
        .onNotification(acp.methods.client.session.update, ({ params }) => void updates.push(params))
        .onRequest(acp.methods.client.session.requestPermission, ({ params }) => ({
          outcome: { outcome: "selected", optionId: params.options[0]!.optionId },
        }));
      const connection = client.connect(agent.stream as acp.Stream);
      const init = await connection.agent.request(acp.methods.agent.initialize, {
        protocolVersion: 1,
        clientCapabilities: capabilities,
      });
      expect(init.protocolVersion).toBe(1);
      const { sessionId } = await connection.agent.request(acp.methods.agent.session.new, {
        cwd: suite.project,
        mcpServers: [],
      });
      const response = await connection.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text: "go" }],
      });
      expect(response.stopReason).toBe("end_turn");
      await new Promise((resolve) => setImmediate(resolve));
      const kinds = updates.filter((u) => u.sessionId === sessionId).map((u) => u.update.sessionUpdate);
      const others = updates.filter((u) => u.sessionId !== sessionId);
      if (opted) {
        expect(kinds).toContain("plan_update");
        expect(kinds).toContain("subagent_update");
        expect(kinds).not.toContain("plan");
        expect(others.some((u) => u.update.sessionUpdate === "agent_message_chunk")).toBe(true);
      } else {
        expect(kinds).toContain("plan");
        expect(kinds).not.toContain("plan_update");
        expect(kinds).not.toContain("subagent_update");
        expect(others).toEqual([]);
      }
      connection.close();
      await agent.stop();
      expect(agent.check.checked).toBeGreaterThan(5);
    });
  }

  it("ACP v2 through the SDK's protocol router: state updates, plans and a child session", async () => {
    suite.model.setHandler(script);
    const agent = spawnAgent(2);
    const updates: v2.UpdateSessionNotification[] = [];
    let idle!: () => void;
    const idled = new Promise<void>((resolve) => (idle = resolve));
    const client = v2.client({ name: "e2e-v2" }).onNotification(v2.methods.client.session.update, ({ params }) => {
      updates.push(params);
      const u = params.update as { sessionUpdate: string; state?: string };
      if (u.sessionUpdate === "state_update" && u.state === "idle" && params.sessionId === updates[0]?.sessionId)
        idle();
    });
    const connection = client.connect(agent.stream as v2.Stream);
    const init = await connection.agent.request(v2.methods.agent.initialize, {
      protocolVersion: 2,
      info: { name: "e2e-v2", version: "1.0.0" },
    });
    expect(init.protocolVersion).toBe(2);
    const { sessionId } = await connection.agent.request(v2.methods.agent.session.new, { cwd: suite.project });
    const { messageId } = await connection.agent.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "go" }],
    });
    expect(typeof messageId).toBe("string");
    await idled;
    const own = updates.filter((u) => u.sessionId === sessionId).map((u) => u.update.sessionUpdate);
    expect(own).toEqual(expect.arrayContaining(["state_update", "user_message", "plan_update", "subagent_update"]));
    expect(updates.some((u) => u.sessionId !== sessionId && u.update.sessionUpdate === "agent_message_chunk")).toBe(
      true,
    );
    connection.close();
    await agent.stop();
    expect(agent.check.checked).toBeGreaterThan(10);
  });
});
