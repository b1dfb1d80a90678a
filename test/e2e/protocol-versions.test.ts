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
import { pollUntil } from "../support/poll.js";
import { createSchemaCheck, type ProtocolVersion } from "../support/schema-check.js";

const isIdleUpdate = (update: v2.SessionUpdate) =>
  update.sessionUpdate === "state_update" && (update as { state: string }).state === "idle";

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

    // A prompt sent while a turn runs joins it: the model's next request carries it, in the same turn.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    suite.model.setHandler(async (request) => {
      if (request.lastUserText === "first") await gate;
      return textTurn(`answer to ${request.lastUserText}`);
    });
    const idleBefore = updates.filter((u) => u.sessionId === sessionId && isIdleUpdate(u.update)).length;
    const asked = suite.model.requests.length;
    await connection.agent.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "first" }],
    });
    await suite.model.waitForRequests(asked + 1);
    const joining = connection.agent.request(v2.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text: "and this" }],
    });
    // Requests are taken in order: once this is answered the prompt above has been offered to the turn.
    await connection.agent.request(v2.methods.agent.session.status, { sessionId });
    release();
    const joined = await joining;
    await suite.model.waitForRequests(asked + 2);
    expect(suite.model.requests.at(-1)!.lastUserText).toBe("and this");
    await pollUntil(
      () => updates.filter((u) => u.sessionId === sessionId && isIdleUpdate(u.update)).length > idleBefore,
      "the joined turn's idle update",
    );
    const echo = updates.find(
      (u) => u.update.sessionUpdate === "user_message_chunk" && u.update.messageId === joined.messageId,
    );
    expect(echo?.sessionId).toBe(sessionId);

    // Session standing through the binary: a title, and the status with the foreground state.
    expect(init.capabilities?.session).toMatchObject({ title: {}, status: {}, archive: {} });
    const titled = await connection.agent.request(v2.methods.agent.session.setTitle, { sessionId, title: "e2e" });
    expect(titled.title).toBe("e2e");
    const status = await connection.agent.request(v2.methods.agent.session.status, { sessionId });
    expect(status).toMatchObject({ status: "open", state: { state: "idle" } });
    connection.close();
    await agent.stop();
    expect(agent.check.checked).toBeGreaterThan(10);
  });
});
