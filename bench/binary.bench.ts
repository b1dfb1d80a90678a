// The standalone binary (npm run build:binary) against the bare-Node floor and the npm-launched
// agent (`node dist/deep-acp.js`), all measured in the same run, interleaved: ready (spawn ->
// initialize and session/new answered), the first model request of a prompt sent as session/new is
// answered, and RSS after initialize. The binary starts from a V8 startup snapshot of the ACP path.
import { chmodSync, copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createFakeModelServer } from "../test/support/fake-model/index.js";
import { median, round, type BenchResult } from "./lib.js";
import { BARE_AGENT, timeFirstModelRequest, timeInitialize, timeReady } from "./startup.bench.js";

const SCRIPT = resolve(import.meta.dirname, "../dist/deep-acp.js");
export const STANDALONE = resolve(import.meta.dirname, `../dist/bin/deep-acp-${process.platform}-${process.arch}`);

export async function runBinaryBench(runs = 9): Promise<BenchResult[]> {
  if (!existsSync(STANDALONE)) throw new Error(`${STANDALONE} is missing: npm run build:binary`);
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-binary-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  const bare = join(home, "bare-agent.mjs");
  writeFileSync(bare, BARE_AGENT);
  // A copy, as a user's download is: the file postject has just written sits in the page cache in
  // large folios, each mapped whole on a fault, which adds ~14 MB to the binary's RSS (measured).
  const binary = join(home, "deep-acp");
  copyFileSync(STANDALONE, binary);
  chmodSync(binary, 0o755);
  const model = await createFakeModelServer();
  const env = { PATH: process.env.PATH, HOME: home, ANTHROPIC_API_KEY: "bench-key" };
  const modelEnv = { ...env, ANTHROPIC_BASE_URL: model.anthropicBaseUrl };
  const node = process.execPath;
  const figures = { bareReady: [] as number[], ready: [] as number[], first: [] as number[], rss: [] as number[] };
  const npm = { ready: [] as number[], first: [] as number[], rss: [] as number[] };
  try {
    // Warm the file cache for each program once.
    await timeReady(node, [bare], env, project);
    await timeReady(binary, [], modelEnv, project);
    await timeReady(node, [SCRIPT], modelEnv, project);
    for (let i = 0; i < runs; i++) {
      figures.bareReady.push(await timeReady(node, [bare], env, project));
      figures.ready.push(await timeReady(binary, [], modelEnv, project));
      npm.ready.push(await timeReady(node, [SCRIPT], modelEnv, project));
      figures.first.push((await timeFirstModelRequest(binary, model, modelEnv, project, [])).ms);
      npm.first.push((await timeFirstModelRequest(node, model, modelEnv, project, [SCRIPT])).ms);
      figures.rss.push((await timeInitialize(binary, [], modelEnv)).rss);
      npm.rss.push((await timeInitialize(node, [SCRIPT], modelEnv)).rss);
    }
  } finally {
    await model.close();
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
  const floor = median(figures.bareReady);
  const vsNpm = (binary: number[], script: number[]) =>
    `node dist/deep-acp.js in the same run: ${round(median(script))} (${round(median(script) / floor, 2)}x)`;
  return [
    {
      name: "binary.ready",
      value: round(median(figures.ready)),
      unit: "ms",
      baseline: round(floor),
      ratio: round(median(figures.ready) / floor, 2),
      target: "<= 1.5x bare Node ready",
      note: vsNpm(figures.ready, npm.ready),
    },
    {
      name: "binary.first-model-request",
      value: round(median(figures.first)),
      unit: "ms",
      baseline: round(floor),
      ratio: round(median(figures.first) / floor, 2),
      target: "<= 4x bare Node ready",
      note: `spawn -> the model request of a prompt sent as session/new is answered; ${vsNpm(figures.first, npm.first)}`,
    },
    {
      name: "binary.rss-after-initialize",
      value: round(median(figures.rss)),
      unit: "MB",
      target: "<= 55 MB",
      note: `200 ms after initialize; node dist/deep-acp.js: ${round(median(npm.rss))} MB`,
    },
  ];
}
