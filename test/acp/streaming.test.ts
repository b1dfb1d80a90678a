import { describe, expect, it } from "vitest";
import { agentText } from "../support/acp-harness.js";
import { useHarnessSuite } from "../support/harness-suite.js";
import type { FakeTurn } from "../support/fake-model/index.js";

// A fast model's burst is relayed a network read at a time (deltas merged, the transcript written in
// large pieces): the editor must still see exactly the model's text, live and after session/load.

const suite = useHarnessSuite({ name: "streaming" });

const words = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i % 89}`).join(" ");
const thoughtText = (updates: readonly { sessionUpdate: string; content?: unknown }[]) =>
  updates.map((u) => (u.sessionUpdate === "agent_thought_chunk" ? (u.content as { text: string }).text : "")).join("");

describe("streaming a burst", () => {
  for (const api of ["anthropic", "openai"] as const) {
    it(`relays a 20,000-word ${api} answer exactly, and replays it exactly after session/load`, async () => {
      const answer = `${words(20_000, "w")} ✓ 🙂 done`;
      const thinking = words(3_000, "t");
      const turn: FakeTurn = {
        parts: [
          { type: "thinking", text: thinking },
          { type: "text", text: answer },
        ],
      };
      const before = await suite.start({ api });
      const { sessionId } = await before.newSession(suite.project);
      before.model.enqueue(turn);
      const { updates } = await before.prompt(sessionId, "talk");
      expect(agentText(updates)).toBe(answer);
      expect(thoughtText(updates)).toBe(thinking);
      await before.close();

      const after = await suite.start({ api });
      const start = after.updates.length;
      await after.agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
      const replay = after.updates.slice(start).map((n) => n.update);
      expect(agentText(replay)).toBe(answer);
      expect(thoughtText(replay)).toBe(thinking);
    });
  }
});
