import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // One test file per core, not vitest's default of one fewer: most files spend their time waiting on
    // the agents, model servers and engines they start, so on a 2-core machine two at once take the whole
    // suite from ~8.5 to ~3.8 minutes with the same results. At most four: every file starts agents,
    // model servers and containers of its own, and a big machine should not run dozens of those at once.
    maxWorkers: Math.min(availableParallelism(), 4),
  },
});
