import { describe, expect, it } from "vitest";
import { createSchemaCheck } from "../../support/schema-check.js";

describe("the schema check used by the ACP tests", () => {
  it("accepts valid v1 traffic and names what is invalid", () => {
    const check = createSchemaCheck(1);
    check.fromClient({ jsonrpc: "2.0", id: 1, method: "session/new", params: { cwd: "/tmp", mcpServers: [] } });
    check.fromAgent({ jsonrpc: "2.0", id: 1, result: { sessionId: "s" } });
    check.fromAgent({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "plan_removed", planId: "p" } },
    });
    expect(check.violations).toEqual([]);
    check.fromAgent({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: { sessionUpdate: "subagent_update" } },
    });
    check.fromAgent({ jsonrpc: "2.0", method: "session/request_permission", id: 7, params: { sessionId: "s" } });
    expect(check.violations).toHaveLength(2);
    expect(check.violations[0]).toContain("SessionNotification");
    expect(() => check.assertValid()).toThrow(/RequestPermissionRequest/);
  });

  it("checks v2 traffic against the v2 schema", () => {
    const check = createSchemaCheck(2);
    const update = (u: unknown) => ({
      jsonrpc: "2.0",
      method: "session/update",
      params: { sessionId: "s", update: u },
    });
    check.fromAgent(update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn", background: [] }));
    expect(check.violations).toEqual([]);
    // v1's tool_call has no v2 counterpart; v2 requires a messageId on every chunk.
    check.fromAgent(update({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } }));
    expect(check.violations).toHaveLength(1);
  });
});
