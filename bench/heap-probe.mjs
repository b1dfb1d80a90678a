// Preloaded into the agent by the memory benchmarks and the lifecycle soak (node --expose-gc --import
// bench/heap-probe.mjs): on SIGUSR2 it runs a full garbage collection and writes process.memoryUsage()
// as JSON to the file named by HEAP_PROBE_FILE, with `codeUsed` (compiled code's share of the heap)
// and `resources`: the live handles and requests that keep the event loop going (timers, sockets,
// pipes, child processes), counted by kind. test/support/heap-probe.ts reads it. A measurement channel
// only; the agent's code is untouched.
import { renameSync, writeFileSync } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";

const file = process.env.HEAP_PROBE_FILE;
if (file && typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    globalThis.gc();
    const resources = {};
    for (const kind of process.getActiveResourcesInfo()) resources[kind] = (resources[kind] ?? 0) + 1;
    // Compiled code is on the heap too, and grows as more of the agent gets optimised: apart, so the
    // objects a session leaves behind can be told from it.
    const codeUsed = getHeapSpaceStatistics()
      .filter((space) => space.space_name.startsWith("code"))
      .reduce((sum, space) => sum + space.space_used_size, 0);
    // Written aside and renamed, so a reader that sees the file sees all of it.
    writeFileSync(`${file}.partial`, JSON.stringify({ ...process.memoryUsage(), codeUsed, resources }));
    renameSync(`${file}.partial`, file);
  });
}
