// Many container sessions in one agent (`npm run bench -- workspace-scale`, also part of `workspace`):
// 1, 5 and 20 sessions opened at once in one built agent, each with its own container (copy mode, a
// small project), on the engine DOCKER_HOST names. For each count: the agent's RSS once every session
// is ready, how long each session took to be ready (session/new sent at once for all -> its /status
// answered, which waits for the container), and a command's latency when every session runs one at
// the same moment (the execute tool call announced -> its result, the model faked at HTTP). The floor,
// measured in the same run: the same agent with one local session. Ratios are against one container
// session; cost that grows no faster than the sessions keeps each ratio at or below the count.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { startAgentProcess, type AgentProcess } from "../test/support/agent-process.js";
import { checkDockerAvailable, ENGINE_ENV, prepareEngineHome, TEST_IMAGE } from "../test/support/docker.js";
import { createFakeModelServer, textTurn, toolTurn, type FakeModelServer } from "../test/support/fake-model/index.js";
import { median, round, rssMb, sleep, type BenchResult } from "./lib.js";

const COUNTS = [1, 5, 20];
const ROUNDS = 3;

type Figures = { rss: number; ready: number[]; command: number[] };

/** Every session/update line's arrival time, by the tool call id it reports on. */
function watchToolCalls(agent: AgentProcess) {
  const announced = new Map<string, number>();
  const done = new Map<string, number>();
  let buffer = "";
  agent.child.stdout.on("data", (chunk: Buffer | string) => {
    const now = performance.now();
    buffer += chunk.toString();
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      if (!line.includes('"toolCallId"')) continue;
      const update = JSON.parse(line).params?.update;
      if (update?.sessionUpdate === "tool_call" && !announced.has(update.toolCallId))
        announced.set(update.toolCallId, now);
      if (update?.sessionUpdate === "tool_call_update" && ["completed", "failed"].includes(update.status))
        done.set(update.toolCallId, now);
    }
  });
  return () => [...done].flatMap(([id, at]) => (announced.has(id) ? [at - announced.get(id)!] : []));
}

async function measure(model: FakeModelServer, count: number, container: boolean, dir: string): Promise<Figures> {
  const home = mkdtempSync(join(dir, "home-"));
  await prepareEngineHome(home);
  const agent = await startAgentProcess({
    args: container ? ["--workspace", `docker://${TEST_IMAGE}`] : [],
    env: { HOME: home, ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: model.anthropicBaseUrl, ...ENGINE_ENV },
  });
  const latencies = watchToolCalls(agent);
  try {
    await agent.initialize();
    const projects = Array.from({ length: count }, (_, i) => {
      const project = join(dir, `project-${container ? "c" : "l"}${count}-${i}`);
      mkdirSync(project);
      for (let f = 0; f < 20; f++) writeFileSync(join(project, `file${f}.ts`), `export const n${f} = ${f};\n`);
      return project;
    });
    const started = performance.now();
    const ready: number[] = [];
    const sessions = await Promise.all(
      projects.map(async (cwd) => {
        const { result, error } = await agent.request("session/new", { cwd, mcpServers: [] });
        if (!result) throw new Error(`session/new failed: ${JSON.stringify(error)}`);
        const sessionId = result.sessionId as string;
        await agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "/status" }] });
        ready.push(performance.now() - started);
        await agent.request("session/set_mode", { sessionId, modeId: "bypass" });
        return sessionId;
      }),
    );
    await sleep(500);
    const rss = rssMb(agent.child.pid!);
    for (let r = 0; r < ROUNDS; r++)
      await Promise.all(
        sessions.map((sessionId) =>
          agent.request("session/prompt", { sessionId, prompt: [{ type: "text", text: "run it" }] }),
        ),
      );
    const command = latencies();
    if (command.length < count * ROUNDS) throw new Error(`only ${command.length} commands finished: ${agent.stderr}`);
    return { rss, ready, command };
  } finally {
    await agent.stop();
  }
}

/** One figure at `count` sessions against one session's: its cost should grow no faster than the sessions do. */
function scaled(what: string, count: number, unit: string, value: number, baseline: number, note: string): BenchResult {
  return {
    name: `workspace-scale.${what}@${count}`,
    value: round(value),
    unit,
    baseline: round(baseline),
    ratio: round(value / baseline, 2),
    target: `<= ${count}x`,
    note,
  };
}

export async function runWorkspaceScaleBench(): Promise<BenchResult[]> {
  const available = await checkDockerAvailable();
  if (!available.ok) return [{ name: "workspace-scale", value: 0, unit: "", note: `skipped: ${available.reason}` }];
  const { docker } = available;
  const dir = mkdtempSync(join(tmpdir(), "deep-acp-bench-scale-"));
  // Each prompt: one command, then the answer (a request whose last message is the command's result).
  const model = await createFakeModelServer({
    handler: (request) =>
      request.messages.at(-1)?.role === "tool"
        ? textTurn("done")
        : toolTurn("execute", { command: "echo scale-$((6*7))" }),
  });
  const results: BenchResult[] = [];
  try {
    const floor = await measure(model, 1, false, dir);
    const figures = new Map<number, Figures>();
    for (const count of COUNTS) figures.set(count, await measure(model, count, true, dir));
    const one = figures.get(1)!;
    const where = ENGINE_ENV.DOCKER_HOST ?? "local socket";
    results.push({
      name: "workspace-scale.floor",
      value: round(floor.rss),
      unit: "MB",
      note: `one local session: ready ${round(median(floor.ready))} ms, command ${round(median(floor.command))} ms`,
    });
    for (const [count, f] of figures) {
      const extra = count > 1 ? `, +${round((f.rss - one.rss) / (count - 1))} MB per added session` : "";
      const ready = median(f.ready);
      const command = median(f.command);
      results.push(
        scaled(
          "rss",
          count,
          "MB",
          f.rss,
          one.rss,
          `agent RSS with ${count} container session(s) ready${extra}; engine ${where}`,
        ),
        scaled(
          "ready",
          count,
          "ms",
          ready,
          median(one.ready),
          `median per session, all ${count} opened at once (slowest ${round(Math.max(...f.ready))} ms)`,
        ),
        scaled(
          "command",
          count,
          "ms",
          command,
          median(one.command),
          `median command latency, ${count} at once x ${ROUNDS} rounds (local floor ${round(median(floor.command))} ms)`,
        ),
      );
    }
    return results;
  } finally {
    await model.close();
    // This run's containers only: those whose project is under this run's folder, by id.
    const mine = await docker.listContainers({ all: true, filters: { label: ["deep-acp.root"] } });
    for (const c of mine)
      if (c.Labels["deep-acp.root"]?.startsWith(dir))
        await docker
          .getContainer(c.Id)
          .remove({ force: true })
          .catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}
