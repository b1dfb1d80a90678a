import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { pollUntil } from "../support/poll.js";
import { cpuSeconds, SOAK } from "./soak.js";

// An idle agent costs nothing, whatever directory its session is in: the config watchers look at
// a handful of names, never at a whole tree. Measured from /proc/<pid>/stat (the agent's own CPU
// time); the long run asserts the 1% budget, the short one prints the figures.

const WINDOW_MS = SOAK ? 10_000 : 2_000;

// The project is the empty directory.
const suite = useAgentSuite({ name: "idle", lifetime: "file" });

/**
 * Resolves once the agent's own CPU time stops growing: the session has loaded and the watchers'
 * first scan is over (a scan of / takes longer on a busy machine than on an idle one).
 */
async function settled(pid: number): Promise<void> {
  let last = cpuSeconds(pid);
  await pollUntil(
    () => {
      const now = cpuSeconds(pid);
      const quiet = now === last;
      last = now;
      return quiet;
    },
    "the agent to settle",
    { intervalMs: 250, timeoutMs: 30_000 },
  );
}

describe("idle CPU", () => {
  it("stays under 1% for a session in /, /tmp or an empty project", { timeout: 120_000 }, async () => {
    const agent = await suite.start();
    await agent.initialize();
    const figures: string[] = [];
    const percents: number[] = [];
    for (const cwd of ["/", tmpdir(), suite.project]) {
      const { result } = await agent.request("session/new", { cwd, mcpServers: [] });
      // Let the session finish loading (skills, watchers) before measuring.
      await agent.request("session/list", {});
      await settled(agent.child.pid!);
      const before = cpuSeconds(agent.child.pid!);
      const started = Date.now();
      // The measurement window: the agent is left alone, and its CPU time over it is the figure.
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      const percent = ((cpuSeconds(agent.child.pid!) - before) / ((Date.now() - started) / 1000)) * 100;
      percents.push(percent);
      figures.push(`${cwd} ${percent.toFixed(2)}%`);
      await agent.request("session/close", { sessionId: result.sessionId });
    }
    const missing = await agent.request("session/new", { cwd: join(suite.project, "missing"), mcpServers: [] });
    console.log(
      `idle CPU over ${WINDOW_MS / 1000} s: ${figures.join(", ")}; missing cwd refused with ${missing.error?.code}`,
    );
    expect(missing.error?.code).toBe(-32602);
    if (SOAK) expect(Math.max(...percents)).toBeLessThan(1);
    await agent.stop();
  });
});
