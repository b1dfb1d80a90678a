import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useAgentSuite } from "../support/agent-suite.js";
import { HEAP_PROBE } from "../support/heap-probe.js";
import { closeAll, growth, lifecycleCycle, lifecycleModel, settledProbe } from "./lifecycle.js";
import { SOAK } from "./soak.js";

// Editors keep one agent for days: session/new with an MCP server, a prompt that calls one of its
// tools, session/close, session/load, over and over, must leave nothing behind: no file descriptor,
// child process (peers leak orphaned MCP servers exactly here), event-loop handle or memory beyond
// the sessions' own records. Two sessions stay loaded ([acp] max_loaded_sessions), so the cap's
// unloading runs too. `npm run test:soak` runs 500 cycles; `npm test` a short pass.

const WARMUP = Number(process.env.LC_WARMUP ?? (SOAK ? 20 : 7));
const CYCLES = Number(process.env.LC_CYCLES ?? (SOAK ? 500 : 13));

const suite = useAgentSuite({ name: "lifecycle", lifetime: "file", handler: lifecycleModel });

describe("long-lived agent", () => {
  it(
    `stays flat over ${CYCLES} cycles of new, a prompt with an MCP tool call, close and load`,
    { timeout: SOAK ? 1_800_000 : 120_000 },
    async () => {
      await mkdir(join(suite.home, ".deepagents"), { recursive: true });
      await writeFile(join(suite.home, ".deepagents", "config.toml"), "[acp]\nmax_loaded_sessions = 2\n");
      const probeFile = join(suite.home, "probe.json");
      const agent = await suite.start({
        nodeArgs: ["--expose-gc", "--import", HEAP_PROBE],
        env: { HEAP_PROBE_FILE: probeFile },
      });
      await agent.initialize();
      // Measured with every session closed, as when an editor closes its window: a state both ends
      // share, whatever the cap left loaded.
      const ids: string[] = [];
      for (let i = 0; i < WARMUP; i++) ids.push(await lifecycleCycle(agent, suite.project, i));
      await closeAll(agent, ids);
      const before = await settledProbe(agent, probeFile);
      for (let i = WARMUP; i < CYCLES; i++) ids.push(await lifecycleCycle(agent, suite.project, i));
      await closeAll(agent, ids);
      const after = await settledProbe(agent, probeFile);
      const grew = growth(before, after);
      const measured = CYCLES - WARMUP;
      const handles = Object.values(grew.resources).reduce((sum, n) => sum + n, 0);
      console.log(
        `lifecycle: ${measured} cycles after ${WARMUP}: fds ${before.fds} -> ${after.fds}, children ${before.children} -> ${after.children}, ` +
          `handles ${JSON.stringify(before.resources)} -> ${JSON.stringify(after.resources)}, ` +
          `heap ${before.heapUsedMb.toFixed(1)} -> ${after.heapUsedMb.toFixed(1)} MB, of it objects ${before.objectsMb.toFixed(1)} -> ${after.objectsMb.toFixed(1)} MB (${((grew.objectsMb * 1024) / measured).toFixed(1)} KB/cycle), ` +
          `RSS ${before.rssMb.toFixed(0)} -> ${after.rssMb.toFixed(0)} MB`,
      );
      // A leak of one per cycle would show as `measured`; a few are lazily opened once.
      expect(grew.children).toBeLessThanOrEqual(0);
      expect(grew.fds).toBeLessThan(Math.max(3, measured / 10));
      expect(handles).toBeLessThan(Math.max(3, measured / 10));
      // Each cycle leaves one stored session, listed in memory (session/list): a few KB. An MCP client
      // kept after its session closed was ~125 KB (its process and pipes, schema validators).
      expect((grew.objectsMb * 1024) / measured).toBeLessThan(SOAK ? 16 : 150);
    },
  );
});
