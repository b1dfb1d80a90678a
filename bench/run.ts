// `npm run bench`: every benchmark, printed as a table and as JSON lines. Times are medians; ratios
// compare against a baseline measured in the same run, because these machines are noisy.
import { runBinaryBench } from "./binary.bench.js";
import { runStartupBench, startupRuntimes } from "./startup.bench.js";
import { runStreamBench } from "./stream.bench.js";
import { runSessionsBench } from "./sessions.bench.js";
import { runSearchBench } from "./search.bench.js";
import { runInterpreterBench } from "./interpreter.bench.js";
import { runSessionStoreBench } from "./session-store.bench.js";
import { runRobustBench } from "./robust.bench.js";
import { runToolRoundTripBench } from "./tool-roundtrip.bench.js";
import { runMcpBench } from "./mcp.bench.js";
import { runSshBench } from "./ssh.bench.js";
import { runWorkspaceBench } from "./workspace.bench.js";
import { runWorkspaceScaleBench } from "./workspace-scale.bench.js";
import { runMemoryBench } from "./memory.bench.js";
import { runGateBench } from "./gate.bench.js";
import { runPeersBench } from "./peers.bench.js";
import type { BenchResult } from "./lib.js";

const suites: Array<[string, () => Promise<BenchResult[]>]> = [
  // Start-up on this Node and on each release .ci/node-releases installed under .ci/node/, named by version.
  [
    "startup",
    async () => {
      const results: BenchResult[] = [];
      for (const { node, version } of startupRuntimes()) {
        const figures = await runStartupBench(9, node);
        const named =
          node === process.execPath ? figures : figures.map((r) => ({ ...r, name: `${r.name}@${version}` }));
        results.push(...named.map((r) => ({ ...r, note: `${version}; ${r.note ?? ""}`.replace(/; $/, "") })));
      }
      return results;
    },
  ],
  // The standalone binary (npm run build:binary) against the same floor, in its own run.
  ["binary", () => runBinaryBench()],
  ["stream", () => runStreamBench()],
  ["sessions", () => runSessionsBench()],
  [
    "session-store",
    async () =>
      (await runSessionStoreBench({ report: () => undefined })).map((r) => ({
        name: r.name,
        value: Math.round(r.ms * 10) / 10,
        unit: "ms",
        note: "store only, in-process",
      })),
  ],
  ["tool", () => runToolRoundTripBench()],
  ["memory", () => runMemoryBench()],
  ["mcp", () => runMcpBench()],
  ["search", () => runSearchBench()],
  ["interpreter", () => runInterpreterBench()],
  ["robust", () => runRobustBench()],
  ["ssh", () => runSshBench()],
  ["workspace", async () => [...(await runWorkspaceBench()), ...(await runWorkspaceScaleBench())]],
  // Only the 1/5/20-sessions case of "workspace".
  ["workspace-scale", () => runWorkspaceScaleBench()],
  ["gate", () => runGateBench()],
  ["peers", () => runPeersBench()],
];

const only = process.argv.slice(2);
const results: BenchResult[] = [];
for (const [name, run] of suites) {
  if (only.length > 0 && !only.includes(name)) continue;
  process.stderr.write(`running ${name}...\n`);
  results.push(...(await run()));
}
const rows = results.map((r) => [
  r.name,
  `${r.value} ${r.unit}`,
  r.baseline !== undefined ? `${r.baseline} ${r.unit}` : "",
  r.ratio !== undefined ? `${r.ratio}x` : "",
  r.target ?? "",
  r.note ?? "",
]);
const header = ["benchmark", "value", "baseline", "ratio", "target", "note"];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ");
console.log(line(header));
for (const row of rows) console.log(line(row));
for (const r of results) console.log(JSON.stringify(r));
