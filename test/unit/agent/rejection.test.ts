import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isTurnReport, type AgentEvent } from "../../../src/agent/events.js";
import { runTurn, type TurnOptions } from "../../../src/agent/loop.js";
import type { ApprovalOutcome } from "../../../src/gate/door/approver.js";
import { createSessionApprovalMemory } from "../../../src/gate/memory/approval-memory.js";
import type { ModelClient, ModelEvent } from "../../../src/model/types.js";
import { defineTool } from "../../../src/tools/define-tool.js";

// A client that answers a permission dialog with a rejection and interrupts the turn in the next
// breath (its session/cancel is the line after the answer) must still see the rejected call end
// `failed`: that update has to go out in the very tick the answer arrives, before the abort, since
// nothing may follow the cancel.

const deploy = defineTool({
  name: "deploy",
  hookName: "Deploy",
  description: "Deploys.",
  kind: "other",
  effect: "external",
  schema: z.object({ target: z.string() }),
  present: (input) => ({ title: `Deploy to ${input.target}` }),
  execute: async () => ({ content: [{ type: "text", text: "deployed" }] }),
});

function scriptedModel(...turns: ModelEvent[][]): ModelClient {
  return {
    id: "fake:model",
    provider: "anthropic",
    model: "model",
    contextWindow: 100_000,
    supportsImages: false,
    async *stream() {
      yield* turns.shift() ?? [];
    },
  };
}

const callTurn: ModelEvent[] = [
  { type: "tool_call_start", id: "c1", name: "deploy" },
  { type: "tool_call_ready", id: "c1", name: "deploy", input: { target: "prod" } },
  {
    type: "done",
    stopReason: "tool_use",
    usage: { inputTokens: 1, outputTokens: 1 },
    message: {
      role: "assistant",
      content: [{ type: "tool_call", id: "c1", name: "deploy", input: { target: "prod" } }],
    },
  },
];

describe("a rejected call", () => {
  for (const answer of ["reject_once", "reject_always"] as const) {
    it(`ends failed before an interrupt that follows the ${answer} answer at once`, async () => {
      const abort = new AbortController();
      const events: AgentEvent[] = [];
      const options: TurnOptions = {
        model: { client: scriptedModel(callTurn), system: "", tools: [deploy], maxRequests: 5 },
        toolCalls: {
          context: {
            sessionId: "s",
            cwd: "/tmp",
            roots: ["/tmp"],
            backend: undefined as never,
            limits: { shellTimeoutMs: 1000, shellOutputChars: 1000 },
          },
          gate: {
            mode: "default",
            virtualPrefixes: [],
            memory: createSessionApprovalMemory(),
            approver: {
              requestApproval: () =>
                new Promise<ApprovalOutcome>((resolve) =>
                  setTimeout(() => {
                    resolve(answer);
                    // The editor's session/cancel, handled right behind the answer.
                    queueMicrotask(() => abort.abort());
                  }, 0),
                ),
            },
          },
        },
        signal: abort.signal,
        emit: (event) => void (isTurnReport(event) || events.push(event)),
        newId: (() => {
          let n = 0;
          return () => `id-${++n}`;
        })(),
      };
      const result = await runTurn([], { role: "user", content: [{ type: "text", text: "ship it" }] }, options);
      expect(result.stopReason).toBe("cancelled");
      const call = events.find((e) => e.type === "tool_call");
      expect(call).toMatchObject({ title: "Deploy to prod", rawInput: { target: "prod" } });
      const last = events.filter((e) => e.type === "tool_call_update").at(-1);
      expect(last).toMatchObject({ status: "failed" });
    });
  }
});
