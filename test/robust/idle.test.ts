import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentProcess } from "../support/agent-process.js";
import { createFakeModelServer, type FakeModelServer } from "../support/fake-model/index.js";
import { cpuSeconds, SOAK } from "./soak.js";

// An idle agent costs nothing, whatever directory its session is in: the config watchers look at
// a handful of names, never at a whole tree. Measured from /proc/<pid>/stat (the agent's own CPU
// time); the long run asserts the 1% budget, the short one prints the figures.

const WINDOW_MS = SOAK ? 10_000 : 2_000;

let model: FakeModelServer;
let home: string;
let empty: string;

beforeAll(async () => {
  model = await createFakeModelServer();
  home = await mkdtemp(join(tmpdir(), "deep-acp-idle-home-"));
  empty = await mkdtemp(join(tmpdir(), "deep-acp-idle-project-"));
});
afterAll(async () => {
  await model.close();
  await rm(home, { recursive: true, force: true });
  await rm(empty, { recursive: true, force: true });
});

describe("idle CPU", () => {
  it("stays under 1% for a session in /, /tmp or an empty project", { timeout: 120_000 }, async () => {
    const agent = await startAgentProcess({
      env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl },
    });
    await agent.initialize();
    const figures: string[] = [];
    const percents: number[] = [];
    for (const cwd of ["/", tmpdir(), empty]) {
      const { result } = await agent.request("session/new", { cwd, mcpServers: [] });
      // Let the session finish loading (skills, watchers) before measuring.
      await agent.request("session/list", {});
      await new Promise((r) => setTimeout(r, 1000));
      const before = cpuSeconds(agent.child.pid!);
      const started = Date.now();
      await new Promise((r) => setTimeout(r, WINDOW_MS));
      const percent = ((cpuSeconds(agent.child.pid!) - before) / ((Date.now() - started) / 1000)) * 100;
      percents.push(percent);
      figures.push(`${cwd} ${percent.toFixed(2)}%`);
      await agent.request("session/close", { sessionId: result.sessionId });
    }
    const missing = await agent.request("session/new", { cwd: join(empty, "missing"), mcpServers: [] });
    console.log(
      `idle CPU over ${WINDOW_MS / 1000} s: ${figures.join(", ")}; missing cwd refused with ${missing.error?.code}`,
    );
    expect(missing.error?.code).toBe(-32602);
    if (SOAK) expect(Math.max(...percents)).toBeLessThan(1);
    await agent.stop();
  });
});
