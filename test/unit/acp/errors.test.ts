import * as acp from "@agentclientprotocol/sdk/unstable";
import { describe, expect, it } from "vitest";
import { mapErrors, toRequestError } from "../../../src/acp/errors.js";
import { ForkPointError, RewindError } from "../../../src/session/errors.js";
import { InvalidCursorError, InvalidSessionIdError, SessionNotFoundError } from "../../../src/transcript/index.js";

describe("domain errors -> JSON-RPC errors", () => {
  const cases: Array<
    [string, unknown, { sessionId?: string; messageId?: string; cursor?: string }, number | undefined]
  > = [
    ["unknown session", new SessionNotFoundError("s1"), { sessionId: "s1" }, -32002],
    ["malformed session id", new InvalidSessionIdError("../x"), { sessionId: "../x" }, -32002],
    ["bad list cursor", new InvalidCursorError("zz"), { cursor: "zz" }, -32602],
    ["unknown fork point", new ForkPointError("no message m1"), { messageId: "m1" }, -32602],
    ["unknown rewind point", new RewindError("unknown_message_id", "no user message m1"), { messageId: "m1" }, -32602],
  ];
  for (const [what, error, context, code] of cases) {
    it(`maps ${what} to ${code}`, () => {
      const mapped = toRequestError(error, context);
      expect(mapped).toBeInstanceOf(acp.RequestError);
      expect((mapped as acp.RequestError).code).toBe(code);
    });
  }

  it("passes wire errors and anything unknown through unchanged", async () => {
    const wire = acp.RequestError.invalidParams({}, "bad");
    expect(toRequestError(wire)).toBe(wire);
    const other = new Error("disk full");
    expect(toRequestError(other)).toBe(other);
    await expect(mapErrors({}, async () => Promise.reject(other))).rejects.toBe(other);
    await expect(
      mapErrors({ sessionId: "s" }, async () => Promise.reject(new SessionNotFoundError("s"))),
    ).rejects.toBeInstanceOf(acp.RequestError);
    expect(await mapErrors({}, async () => 7)).toBe(7);
  });
});
