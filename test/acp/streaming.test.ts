import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { agentText, startHarness, type Harness } from "../support/acp-harness.js";
import type { FakeTurn } from "../support/fake-model/index.js";

// A fast model's burst is relayed a network read at a time (deltas merged, the transcript written in
// large pieces): the editor must still see exactly the model's text, live and after session/load.

let home: string;
let project: string;
const harnesses: Harness[] = [];
beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "deep-acp-streaming-home-"));
  project = await mkdtemp(join(tmpdir(), "deep-acp-streaming-project-"));
});
afterEach(async () => {
  for (const h of harnesses.splice(0)) await h.close();
  await rm(home, { recursive: true, force: true });
  await rm(project, { recursive: true, force: true });
});

async function agent(api?: "anthropic" | "openai") {
  const h = await startHarness({ home, ...(api && { api }) });
  harnesses.push(h);
  return h;
}

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
      const before = await agent(api);
      const { sessionId } = await before.newSession(project);
      before.model.enqueue(turn);
      const { updates } = await before.prompt(sessionId, "talk");
      expect(agentText(updates)).toBe(answer);
      expect(thoughtText(updates)).toBe(thinking);
      await before.close();
      harnesses.length = 0;

      const after = await agent(api);
      const start = after.updates.length;
      await after.agent.request("session/load", { sessionId, cwd: project, mcpServers: [] });
      const replay = after.updates.slice(start).map((n) => n.update);
      expect(agentText(replay)).toBe(answer);
      expect(thoughtText(replay)).toBe(thinking);
    });
  }
});
