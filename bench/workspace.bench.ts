// Container workspaces against the local backend, on the same files, in the same run: a 5,000-file
// tree copied into a container on the real engine (copy mode), then the same work through the
// container's helper and on the local disk. Also the session a user waits for: the built binary
// spawned, initialize + session/new answered and the container ready (the first /status answered).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { openContainerWorkspace } from "../src/backends/container/container-workspace.js";
import { createLocalShellBackend } from "../src/backends/local/local-shell.js";
import { checkDockerAvailable, TEST_IMAGE } from "../test/support/docker.js";
import { buildTree, check, commandBurst, grepNeedle } from "./backend-work.js";
import { median, ndjsonChild, round, timed, type BenchResult } from "./lib.js";

const BINARY = join(import.meta.dirname, "..", "dist", "deep-acp.js");

/** spawn -> initialize -> session/new -> "/status" answered (it waits for the workspace). */
async function sessionReady(home: string, project: string, args: string[]): Promise<number> {
  const started = performance.now();
  const child = ndjsonChild(process.execPath, [BINARY, ...args], {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "k",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    ...(process.env.DOCKER_HOST ? { DOCKER_HOST: process.env.DOCKER_HOST } : {}),
  });
  child.send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await child.next((m) => m.id === 1);
  child.send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: project, mcpServers: [] } });
  const { result } = await child.next((m) => m.id === 2);
  child.send({
    jsonrpc: "2.0",
    id: 3,
    method: "session/prompt",
    params: { sessionId: result.sessionId, prompt: [{ type: "text", text: "/status" }] },
  });
  await child.next((m) => m.id === 3);
  const elapsed = performance.now() - started;
  const status = child.seen.find((m) => m.params?.update?.content?.text?.includes("Status"));
  if (args.length > 0 && !JSON.stringify(status).includes("Container workspace"))
    throw new Error(`no container workspace in /status: ${JSON.stringify(status)}`);
  await child.stop();
  return elapsed;
}

export async function runWorkspaceBench(runs = 7): Promise<BenchResult[]> {
  const available = await checkDockerAvailable();
  if (!available.ok) return [{ name: "workspace", value: 0, unit: "", note: `skipped: ${available.reason}` }];
  const { docker } = available;
  const dir = mkdtempSync(join(tmpdir(), "deep-acp-bench-workspace-"));
  const created: string[] = [];
  const results: BenchResult[] = [];
  try {
    const tree = join(dir, "tree");
    buildTree(tree);
    const stateDir = join(dir, "state");
    const open = async (sessionId: string, hostRoot: string) => {
      const workspace = await openContainerWorkspace({
        spec: { kind: "docker", image: TEST_IMAGE, mount: "copy" },
        sessionId,
        hostRoot,
        stateDir,
        home: join(dir, "home"),
        limits: { network: "none" },
        readOnlyEntries: [],
      });
      created.push(workspace.record.containerId);
      return workspace;
    };

    // Container start with the image present: create, copy a small project in, start, helper answers.
    const small = join(dir, "small");
    buildTree(small, 50);
    let n = 0;
    const startMs = await timed(runs, async () => {
      const w = await open(`bench-start-${n++}`, small);
      await w.backend.close();
    });
    results.push({
      name: "workspace.container-start",
      value: round(startMs),
      unit: "ms",
      note: "create + copy 50 files + attach + start + helper ping (image present)",
    });

    const copyStarted = performance.now();
    const workspace = await open("bench-main", tree);
    results.push({
      name: "workspace.copy-5k-files",
      value: round(performance.now() - copyStarted),
      unit: "ms",
      note: "the same with the 5,000-file tree (one run)",
    });
    const remote = workspace.backend;
    const local = createLocalShellBackend({ rootDir: tree });
    const file = "pkg0/mod0/file1.ts";

    /** The same work `count` times through the container and on the local disk: one row per operation. */
    const perOperation = async (
      name: string,
      count: number,
      note: string,
      work: (b: typeof local, i: number) => Promise<unknown>,
    ) => {
      const container = await timed(runs, async () => {
        for (let i = 0; i < count; i++) await work(remote, i);
      });
      const onDisk = await timed(runs, async () => {
        for (let i = 0; i < count; i++) await work(local, i);
      });
      results.push({
        name,
        value: round(container / count, 3),
        unit: "ms",
        baseline: round(onDisk / count, 3),
        ratio: round(container / onDisk, 2),
        target: "<= 3x",
        note,
      });
    };
    await perOperation("workspace.read-file", 50, "per read_file, through the helper vs the local disk", async (b) =>
      check(await b.read(join(tree, file))),
    );
    let w = 0;
    await perOperation("workspace.write-file", 50, "per write_file (overwrite, previous text returned)", async (b, i) =>
      check(await b.write(join(tree, "out", `${b === local ? "l" : "c"}${i}.txt`), `write ${w++}\n`)),
    );

    const containerBurst = await timed(runs, commandBurst(remote, "container"));
    const localBurst = await timed(runs, commandBurst(local, "local"));
    results.push({
      name: "workspace.command-burst-20",
      value: round(containerBurst),
      unit: "ms",
      baseline: round(localBurst),
      ratio: round(containerBurst / localBurst, 2),
      target: "<= 1.5x",
      note: "20 sequential commands",
    });

    const containerGrep = await timed(runs, grepNeedle(remote, tree, "container"));
    const localGrep = await timed(runs, grepNeedle(local, tree, "local"));
    results.push({
      name: "workspace.grep-5k-files",
      value: round(containerGrep),
      unit: "ms",
      baseline: round(localGrep),
      ratio: round(containerGrep / localGrep, 2),
      note: "rg in the container vs rg locally",
    });
    await remote.close();

    // What a user waits for: a session whose workspace is a container, through the built binary.
    const home = join(dir, "home");
    const readyContainer: number[] = [];
    const readyLocal: number[] = [];
    for (let i = 0; i < Math.max(3, Math.floor(runs / 2)); i++) {
      readyLocal.push(await sessionReady(home, small, []));
      readyContainer.push(await sessionReady(home, small, ["--workspace", `docker://${TEST_IMAGE}`]));
    }
    results.push({
      name: "workspace.session-ready",
      value: round(median(readyContainer)),
      unit: "ms",
      baseline: round(median(readyLocal)),
      target: "<= 1500 ms",
      note: "spawn + initialize + session/new + /status answered with the container ready",
    });
    return results;
  } finally {
    const mine = await docker.listContainers({ all: true, filters: { label: ["deep-acp.root"] } });
    for (const c of mine) if (created.includes(c.Id) || c.Labels["deep-acp.root"]?.startsWith(dir)) created.push(c.Id);
    for (const id of new Set(created))
      await docker
        .getContainer(id)
        .remove({ force: true })
        .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
