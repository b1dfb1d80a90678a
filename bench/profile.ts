// `npm run profile -- [startup|load] [cpu|heap]`: runs the built agent once under V8's profiler and
// leaves the profile in .profiles/ (git-ignored; open it in Chrome DevTools > Performance / Memory,
// or https://www.speedscope.app). `startup` drives initialize + session/new in an empty HOME;
// `load` seeds the sessions bench's 2,000-message session and drives session/list + session/load.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { ndjsonChild, round } from "./lib.js";
import { seedSessions } from "./sessions.bench.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
const OUT = resolve(import.meta.dirname, "../.profiles");
const [scenario = "startup", kind = "cpu"] = process.argv.slice(2);
if (!["startup", "load"].includes(scenario) || !["cpu", "heap"].includes(kind)) {
  process.stderr.write("usage: npm run profile -- [startup|load] [cpu|heap]\n");
  process.exit(2);
}

mkdirSync(OUT, { recursive: true });
const home = mkdtempSync(join(tmpdir(), "deep-acp-profile-home-"));
const project = mkdtempSync(join(tmpdir(), "deep-acp-profile-project-"));
try {
  if (scenario === "load") await seedSessions(home, project);
  const flags =
    kind === "cpu"
      ? ["--cpu-prof", `--cpu-prof-dir=${OUT}`, "--cpu-prof-interval=250"]
      : ["--heap-prof", `--heap-prof-dir=${OUT}`];
  const env = {
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "profile-key",
    ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
  };
  const start = performance.now();
  const agent = ndjsonChild(process.execPath, [...flags, BINARY], env);
  const ask = async (id: number, method: string, params: unknown) => {
    agent.send({ jsonrpc: "2.0", id, method, params });
    const answer = await agent.next((m) => m.id === id && !m.method);
    process.stderr.write(
      `${method} answered at ${round(performance.now() - start)} ms${answer.error ? ` with ${JSON.stringify(answer.error)}` : ""}\n`,
    );
  };
  await ask(1, "initialize", { protocolVersion: 1, clientCapabilities: {} });
  if (scenario === "startup") await ask(2, "session/new", { cwd: project, mcpServers: [] });
  else {
    await ask(2, "session/list", {});
    await ask(3, "session/load", { sessionId: "big", cwd: project, mcpServers: [] });
  }
  await agent.stop();
  process.stderr.write(`profile written to ${OUT}\n`);
} finally {
  rmSync(home, { recursive: true, force: true });
  rmSync(project, { recursive: true, force: true });
}
