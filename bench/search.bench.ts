// grep and glob over a generated 50,000-file tree, against ripgrep and find run in the same bench.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createFilesystemBackend } from "../src/backends/local/filesystem-backend.js";
import { round, timed, type BenchResult } from "./lib.js";

const FILES = 50_000;

function buildTree(root: string): void {
  const dirs = 500;
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `pkg${d % 25}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < FILES / dirs; f++) {
      const ext = f % 3 === 0 ? "ts" : f % 3 === 1 ? "js" : "md";
      const marker = d * 100 + f === 31_337 ? "NEEDLE_MARKER" : "plain";
      writeFileSync(
        join(dir, `file${f}.${ext}`),
        `// ${marker}\nexport const value${f} = ${d};\nfunction helper() { return "${marker}"; }\n`,
      );
    }
  }
}

export async function runSearchBench(runs = 5): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), "deep-acp-bench-tree-"));
  try {
    buildTree(root);
    const backend = createFilesystemBackend({ rootDir: root });
    const hasRg = spawnSync("rg", ["--version"]).status === 0;
    const results: BenchResult[] = [];

    const grepMs = await timed(runs, async () => {
      const r = await backend.grep("NEEDLE_MARKER", root, null, 1000);
      if (r.error || (r.matches?.length ?? 0) !== 2) throw new Error(`grep found ${r.matches?.length}: ${r.error}`);
    });
    if (hasRg) {
      const rgMs = await timed(runs, () =>
        spawnSync("rg", ["-F", "--json", "NEEDLE_MARKER", root], { maxBuffer: 64 << 20 }),
      );
      results.push({
        name: "search.grep-50k-files",
        value: round(grepMs),
        unit: "ms",
        baseline: round(rgMs),
        ratio: round(grepMs / rgMs, 2),
        target: "<= 1.5x ripgrep",
      });
    } else {
      results.push({
        name: "search.grep-50k-files",
        value: round(grepMs),
        unit: "ms",
        note: "rg not installed: no baseline",
      });
    }

    const globMs = await timed(runs, async () => {
      const r = await backend.glob("**/*.ts", root);
      if (r.error || (r.files?.length ?? 0) < FILES / 3 - 1)
        throw new Error(`glob found ${r.files?.length}: ${r.error}`);
    });
    const findMs = await timed(runs, () =>
      spawnSync("find", [root, "-name", "*.ts", "-type", "f"], { maxBuffer: 64 << 20 }),
    );
    results.push({
      name: "search.glob-50k-files",
      value: round(globMs),
      unit: "ms",
      baseline: round(findMs),
      ratio: round(globMs / findMs, 2),
      target: "find as baseline",
    });
    if (hasRg) {
      const rgFilesMs = await timed(runs, () =>
        spawnSync("rg", ["--files", "-g", "*.ts", root], { maxBuffer: 64 << 20 }),
      );
      results.push({
        name: "search.glob-vs-rg-files",
        value: round(globMs),
        unit: "ms",
        baseline: round(rgFilesMs),
        ratio: round(globMs / rgFilesMs, 2),
        target: "<= 1.5x ripgrep",
      });
    }
    return results;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
