// A permission dialog the user dismisses ends its tool call `failed`, after the editor's answer, in
// both orders editors send it: agent-shell's C-c C-c answers `cancelled` and then sends
// session/cancel; Zed sends session/cancel and then answers every open dialog `cancelled`. Before,
// the call stayed pending forever in agent-shell (only a plain reject got its final `failed`).
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Harness, PermissionAnswer } from "../support/acp-harness.js";
import { textTurn, toolTurn } from "../support/fake-model/index.js";
import { useHarnessSuite } from "../support/harness-suite.js";

const suite = useHarnessSuite({ name: "cancel-dialog" });

async function dismissDialog(order: "answer-then-cancel" | "cancel-then-answer") {
  let sessionId = "";
  let answeredAt = -1;
  const h: Harness = await suite.start({
    onPermission: async (): Promise<PermissionAnswer> => {
      if (order === "cancel-then-answer") {
        await h.cancel(sessionId);
        // The point of the test: the editor answers a moment after its session/cancel.
        await new Promise((resolve) => setTimeout(resolve, 100));
      } else {
        setImmediate(() => void h.cancel(sessionId));
      }
      answeredAt = h.updates.length;
      return "cancelled";
    },
  });
  ({ sessionId } = await h.newSession(suite.project));
  h.model.enqueue(toolTurn("execute", { command: `touch ${join(suite.project, "ran.txt")}` }), textTurn("never"));
  const { response } = await h.prompt(sessionId, "run it");
  const toolCallId = h.permissions[0]!.toolCall.toolCallId;
  const ends = h.updates
    .map((u, index) => ({ index, update: u.update }))
    .filter(
      ({ update }) =>
        update.sessionUpdate === "tool_call_update" &&
        update.toolCallId === toolCallId &&
        (update.status === "failed" || update.status === "completed"),
    );
  return { response, ends, answeredAt };
}

describe("a dismissed permission dialog", () => {
  for (const order of ["answer-then-cancel", "cancel-then-answer"] as const) {
    it(`ends the call failed after the editor's answer (${order})`, async () => {
      const { response, ends, answeredAt } = await dismissDialog(order);
      expect(response.stopReason).toBe("cancelled");
      expect(ends.map((e) => e.update)).toEqual([
        expect.objectContaining({
          status: "failed",
          content: [{ type: "content", content: { type: "text", text: "Cancelled by the user." } }],
        }),
      ]);
      expect(ends[0]!.index).toBeGreaterThanOrEqual(answeredAt);
    });
  }
});
