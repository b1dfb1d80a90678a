// `npm run bench -- gate`: what re-checking a remembered "always" costs per command. The same
// gate call for a remembered command, once with its fingerprint taken (the files that decide what it
// runs read and hashed, command-fingerprint.ts) and once with a file system that cannot read files
// (so no fingerprint is taken): the difference is the added cost per check. On the local disk, and
// (with a Docker engine) through a container workspace's helper, where the files are read in copy mode.
import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openContainerWorkspace } from "../src/backends/container/container-workspace.js";
import { nodeRealPathFs, type RealPathFs } from "../src/backends/paths/real-path.js";
import { gateToolCall } from "../src/gate/call/gate.js";
import { createSessionApprovalMemory } from "../src/gate/memory/approval-memory.js";
import { checkDockerAvailable, TEST_IMAGE } from "../test/support/docker.js";
import { round, timed, type BenchResult } from "./lib.js";

async function layOut(project: string): Promise<void> {
  await mkdir(join(project, "mk"));
  await writeFile(join(project, "Makefile"), "include mk/a.mk mk/b.mk\nbuild:\n\t@echo built\n");
  await writeFile(join(project, "mk", "a.mk"), "check:\n\t@true\n");
  await writeFile(join(project, "mk", "b.mk"), "lint:\n\t@true\n");
  await mkdir(join(project, "node_modules", "tool"), { recursive: true });
  await mkdir(join(project, "node_modules", ".bin"));
  await writeFile(join(project, "node_modules", "tool", "cli.js"), "#!/usr/bin/env node\n".padEnd(20_000, "/"));
  await symlink("../tool/cli.js", join(project, "node_modules", ".bin", "tool"));
  await writeFile(join(project, "package.json"), JSON.stringify({ scripts: { test: "tool --ci" } }, null, 2));
}

/** Remembered `make build` and `npm test`, checked with `fs` (its fingerprint) and without reading. */
async function measure(where: string, project: string, fs: RealPathFs, runs: number): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  for (const command of ["make build", "npm test"]) {
    const memory = createSessionApprovalMemory();
    const call = (with_: RealPathFs) =>
      gateToolCall({
        tool: { name: "execute", effect: "execute" },
        input: { command },
        paths: [],
        cwd: project,
        roots: [project],
        virtualPrefixes: [],
        mode: "accept-edits",
        memory,
        policy: with_ === nodeRealPathFs ? {} : { fs: with_ },
      });
    const first = await call(fs);
    const key = first.decision.action === "ask" ? first.decision.alwaysKey : null;
    if (!key) throw new Error(`no "always" for ${command}`);
    memory.remember(key, "allow", command, first.fingerprint);
    if ((await call(fs)).decision.action !== "allow") throw new Error(`${command} not remembered`);
    const checked = await timed(runs, () => call(fs));
    // Same calls without reading files (the remembered entry then asks, but nothing is read or hashed).
    const unread = await timed(runs, () => call({ ...fs, readFile: undefined }));
    results.push({
      name: `gate.${where}: remembered \`${command}\`, fingerprint checked`,
      value: round(checked, 3),
      unit: "ms",
      baseline: round(unread, 3),
      ratio: round(checked / unread, 2),
      note: `+${round(checked - unread, 3)} ms per check; ${Object.keys(first.fingerprint ?? {}).length} items`,
    });
  }
  return results;
}

export async function runGateBench(): Promise<BenchResult[]> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), "deep-acp-bench-gate-")));
  const project = join(dir, "project");
  await mkdir(project);
  const containers: string[] = [];
  const available = await checkDockerAvailable();
  try {
    await layOut(project);
    const results = await measure("local", project, nodeRealPathFs, 300);
    if (!available.ok) return [...results, { name: "gate.container", value: 0, unit: "", note: available.reason }];
    const workspace = await openContainerWorkspace({
      spec: { kind: "docker", image: TEST_IMAGE, mount: "copy" },
      sessionId: "bench-gate",
      hostRoot: project,
      stateDir: join(dir, "state"),
      home: join(dir, "home"),
      limits: { network: "none" },
      readOnlyEntries: [],
    });
    containers.push(workspace.record.containerId);
    try {
      results.push(...(await measure("container", project, workspace.backend.realPathFs, 30)));
      // For scale: the cheapest command the check comes before.
      const echo = await timed(10, () => workspace.backend.execute("echo 1"));
      results.push({ name: "gate.container: `echo 1` itself, for scale", value: round(echo, 3), unit: "ms" });
    } finally {
      await workspace.backend.close();
    }
    return results;
  } finally {
    if (available.ok)
      for (const id of containers)
        await available.docker
          .getContainer(id)
          .remove({ force: true })
          .catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  }
}
