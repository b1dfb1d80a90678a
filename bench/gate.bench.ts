// `npm run bench -- gate`: what re-checking a remembered "always" costs per command. The same
// gate call for a remembered command, once with its fingerprint taken (the files that decide what it
// runs read and hashed, command-fingerprint.ts) and once with a file system that cannot read files
// (so no fingerprint is taken): the difference is the added cost per check.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { nodeRealPathFs, type RealPathFs } from "../src/backends/paths/real-path.js";
import { gateToolCall } from "../src/gate/call/gate.js";
import { createSessionApprovalMemory } from "../src/gate/memory/approval-memory.js";
import { round, timed, type BenchResult } from "./lib.js";

const RUNS = 300;

export async function runGateBench(): Promise<BenchResult[]> {
  const project = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-bench-gate-")));
  try {
    await mkdir(join(project, "mk"));
    await writeFile(join(project, "Makefile"), "include mk/a.mk mk/b.mk\nbuild:\n\t@echo built\n");
    await writeFile(join(project, "mk", "a.mk"), "check:\n\t@true\n");
    await writeFile(join(project, "mk", "b.mk"), "lint:\n\t@true\n");
    await mkdir(join(project, "node_modules", "tool"), { recursive: true });
    await mkdir(join(project, "node_modules", ".bin"));
    await writeFile(join(project, "node_modules", "tool", "cli.js"), "#!/usr/bin/env node\n".padEnd(20_000, "/"));
    await symlink("../tool/cli.js", join(project, "node_modules", ".bin", "tool"));
    await writeFile(join(project, "package.json"), JSON.stringify({ scripts: { test: "tool --ci" } }, null, 2));
    const results: BenchResult[] = [];
    for (const command of ["make build", "npm test"]) {
      const memory = createSessionApprovalMemory();
      const call = (fs: RealPathFs) =>
        gateToolCall({
          tool: { name: "execute", effect: "execute" },
          input: { command },
          paths: [],
          cwd: project,
          roots: [project],
          virtualPrefixes: [],
          mode: "accept-edits",
          memory,
          policy: { fs },
        });
      const first = await call(nodeRealPathFs);
      const key = first.decision.action === "ask" ? first.decision.alwaysKey : null;
      if (!key) throw new Error(`no "always" for ${command}`);
      memory.remember(key, "allow", command, first.fingerprint);
      if ((await call(nodeRealPathFs)).decision.action !== "allow") throw new Error(`${command} not remembered`);
      const checked = await timed(RUNS, () => call(nodeRealPathFs));
      // Same calls without reading files (the remembered entry then asks, but nothing is read or hashed).
      const unread = await timed(RUNS, () => call({ ...nodeRealPathFs, readFile: undefined }));
      results.push({
        name: `gate: remembered \`${command}\` with its fingerprint checked`,
        value: round(checked, 3),
        unit: "ms",
        baseline: round(unread, 3),
        ratio: round(checked / unread, 2),
        note: `+${round((checked - unread) * 1000, 0)} µs per check; ${Object.keys(first.fingerprint ?? {}).length} items`,
      });
    }
    return results;
  } finally {
    await rm(project, { recursive: true, force: true });
  }
}
