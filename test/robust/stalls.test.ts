import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn, type FakeTurn } from "../support/fake-model/index.js";

// No stalls (issue 29 item 2): while one session's prompt waits on its model, and while a line near
// the line limit and a line with millions of values go through the transport, other sessions'
// requests are still answered. The model holds the first prompt until the test releases it, and the
// test releases it only after the other requests were answered, so a queue behind the slow prompt
// (or a lock it holds) would never let this test finish; and every answer is checked, so the wide
// line must be refused (it is, by [acp] max_json_values) rather than parsed. Nothing here is timed.

let releaseSlow!: () => void;
const slowAnswered = new Promise<FakeTurn>((resolve) => (releaseSlow = () => resolve(textTurn("slow answer"))));
const suite = useAgentSuite({
  name: "stalls",
  handler: (request) => (request.lastUserText === "slow" ? slowAnswered : textTurn(`echo: ${request.lastUserText}`)),
});

const answersTo = (id: unknown) => suite.agent.messages.filter((m) => m.id === id && !m.method);

describe("no stalls", () => {
  it("answers other sessions while a prompt waits on its model and huge or wide lines go through", async () => {
    const agent = await suite.start();
    // Hostile lines may make the agent close the connection; a write after that must not fail the run.
    agent.child.stdin.on("error", () => undefined);
    await agent.initialize();
    const newSession = async () =>
      (await agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId as string;
    const slowSession = await newSession();
    const slow = agent.request(
      "session/prompt",
      { sessionId: slowSession, prompt: [{ type: "text", text: "slow" }] },
      "slow",
    );
    await suite.model.waitForRequests(1);

    // Another session, opened and used while the first one's prompt is running.
    const other = await newSession();
    const echo = await agent.request("session/prompt", { sessionId: other, prompt: [{ type: "text", text: "quick" }] });
    expect(echo.result?.stopReason).toBe("end_turn");

    // A line just under max_message_bytes (32 MiB), and one with 10 million values (30 MB): parsed,
    // it would hold the only thread for seconds, and every session with it.
    agent.writeRaw(
      `{"jsonrpc":"2.0","id":"huge","method":"session/list","params":{"_meta":{"x":"${"a".repeat(32 * 1024 * 1024 - 200)}"}}}\n`,
    );
    agent.writeRaw(
      `{"jsonrpc":"2.0","id":"wide","method":"session/list","params":{"_meta":[${"{},".repeat(10_000_000)}{}]}}\n`,
    );
    const list = await agent.request("session/list", {}, "list");
    const mode = await agent.request("session/set_mode", { sessionId: other, modeId: "plan" }, "mode");
    const again = await agent.request("initialize", { protocolVersion: 1, clientCapabilities: {} }, "initialize");

    // All of that was answered while the first prompt is still waiting on its model.
    expect(answersTo("slow")).toEqual([]);
    expect(list.result.sessions.map((s: { sessionId: string }) => s.sessionId).sort()).toEqual(
      [slowSession, other].sort(),
    );
    expect(mode.result).toEqual({});
    expect(again.result?.protocolVersion).toBe(1);
    expect(answersTo("huge").map((m) => m.result?.sessions?.length)).toEqual([2]);
    expect(answersTo("wide").map((m) => m.error)).toEqual([
      expect.objectContaining({ code: -32600, message: expect.stringContaining("max_json_values") }),
    ]);

    releaseSlow();
    expect((await slow).result?.stopReason).toBe("end_turn");
    for (const id of ["slow", "huge", "wide", "list", "mode", "initialize"]) expect(answersTo(id)).toHaveLength(1);
    expect(agent.child.exitCode).toBeNull();
  });
});
