import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { toolTurn } from "../support/fake-model/index.js";
import { poll } from "../support/poll.js";
import { isAlive } from "../support/processes.js";
import { SOAK } from "./soak.js";

// SIGKILL in the middle of a command, again and again, each round loading the session the last one
// left: no process may outlive the killed agent for more than a moment (the lifeline reaper), and
// nothing said before the kill may be lost.

const ROUNDS = SOAK ? 20 : 2;

const suite = useAgentSuite({ name: "sigkill", lifetime: "file" });

/** How long after now every one of `pids` was gone, or undefined if one outlived `timeoutMs`. */
async function gone(pids: number[], timeoutMs: number): Promise<number | undefined> {
  const started = Date.now();
  return (await poll(() => pids.every((pid) => !isAlive(pid)), { timeoutMs })) ? Date.now() - started : undefined;
}

describe("SIGKILL mid-turn", () => {
  it(
    `leaves no process behind and loses nothing over ${ROUNDS} rounds`,
    { timeout: SOAK ? 600_000 : 60_000 },
    async () => {
      let sessionId: string | undefined;
      const reapTimes: number[] = [];
      let leftovers = 0;
      for (let round = 0; round < ROUNDS; round++) {
        const agent = await suite.start();
        await agent.initialize({ _meta: { terminal_output: true } });
        if (sessionId === undefined) {
          sessionId = (await agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result
            .sessionId as string;
          await agent.request("session/set_mode", { sessionId, modeId: "bypass" });
        } else {
          const loaded = await agent.request("session/load", { sessionId, cwd: suite.project, mcpServers: [] });
          expect(loaded.error).toBeUndefined();
          const said = agent
            .updates(sessionId)
            .filter((u) => u.sessionUpdate === "user_message_chunk")
            .map((u) => u.content.text);
          expect(said).toEqual(Array.from({ length: round }, (_, i) => `round ${i}`));
        }
        const marker = join(suite.project, `r${round}`);
        suite.model.enqueue(
          toolTurn("execute", {
            // The `( … &)` sleep is re-parented to init at once: only the group kill can reach it.
            command: `sleep 120 & echo $! > ${marker}.child; (sleep 120 & echo $! > ${marker}.orphan) ; echo $$ > ${marker}.shell; echo started; wait`,
          }),
        );
        void agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: `round ${round}` }] });
        await agent.waitFor(() =>
          agent.updates(sessionId).some((u) => u._meta?.terminal_output?.data?.includes("started")),
        );
        const pids = await Promise.all(
          [`${marker}.child`, `${marker}.orphan`, `${marker}.shell`].map(async (f) =>
            Number((await readFile(f, "utf8")).trim()),
          ),
        );
        expect(pids.every((pid) => pid > 0 && isAlive(pid))).toBe(true);
        agent.child.kill("SIGKILL");
        await agent.exited;
        const took = await gone(pids, 5000);
        if (took === undefined) leftovers++;
        else reapTimes.push(took);
        suite.model.reset();
      }
      console.log(
        `SIGKILL: ${ROUNDS} rounds, ${ROUNDS - 1} loads; processes outliving the agent by > 5 s: ${leftovers}; reaped after ${Math.max(0, ...reapTimes)} ms at most`,
      );
      expect(leftovers).toBe(0);
    },
  );
});
