// Preloaded into the agent by the memory benchmark (node --expose-gc --import bench/heap-probe.mjs):
// on SIGUSR2 it runs a full garbage collection and writes process.memoryUsage() as JSON to the file
// named by HEAP_PROBE_FILE. A measurement channel only; the agent's code is untouched.
import { writeFileSync } from "node:fs";

const file = process.env.HEAP_PROBE_FILE;
if (file && typeof globalThis.gc === "function") {
  process.on("SIGUSR2", () => {
    globalThis.gc();
    writeFileSync(file, JSON.stringify(process.memoryUsage()));
  });
}
