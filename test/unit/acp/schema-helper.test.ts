import { describe, expect, it } from "vitest";
import { acpViolations } from "../../support/acp-schema.js";

// The helper the e2e suites use to prove traffic is schema-valid must itself reject what is not.
describe("acpViolations", () => {
  const sent = [{ jsonrpc: "2.0", id: 1, method: "session/prompt", params: {} }];

  it("accepts valid messages and rejects a bad update, a bad result and an unknown method", () => {
    const good = [
      {
        jsonrpc: "2.0",
        method: "session/update",
        params: {
          sessionId: "s",
          update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
        },
      },
      { jsonrpc: "2.0", id: 1, result: { stopReason: "end_turn" } },
    ];
    expect(acpViolations(good, sent)).toEqual([]);
    const bad = [
      {
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId: "s", update: { sessionUpdate: "agent_message_chunk", content: { type: "text" } } },
      },
      { jsonrpc: "2.0", id: 1, result: { stopReason: "finished" } },
      { jsonrpc: "2.0", method: "session/unheard_of", params: {} },
    ];
    expect(acpViolations(bad, sent)).toHaveLength(3);
  });

  it("checks the draft quota_update against the RFD's shape", () => {
    const update = (meter: unknown) => ({
      jsonrpc: "2.0",
      method: "session/update",
      params: {
        sessionId: "s",
        update: {
          sessionUpdate: "quota_update",
          updatedAt: "2026-10-06T13:10:00.000Z",
          pools: [{ id: "p", meters: [meter] }],
        },
      },
    });
    expect(acpViolations([update({ id: "m", usedPercent: 42, resetsAt: "2026-10-06T18:00:00Z" })], [])).toEqual([]);
    // A meter must carry at least one measurement.
    expect(acpViolations([update({ id: "m", label: "nothing" })], [])).toHaveLength(1);
  });
});
