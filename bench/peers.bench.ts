// Another ACP agent as a subagent: what deep-acp adds between the child and the editor. A scripted
// child (peer-child.mjs, raw ACP) runs one task through src/peers/ (the pool, the task, the update
// translation into our events, fs/read_text_file served through the gate and the session's backend)
// and, in the same run, the same child behind a bare SDK client that only collects its updates and
// reads files with fs.readFile: the floor. Per relayed update: a prompt's time over N updates; per
// fs round trip: the child's own median of N sequential reads.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../src/agent/events.js";
import { createSessionApprovalMemory } from "../src/gate/memory/approval-memory.js";
import { createPeerPool, runPeerTask } from "../src/peers/index.js";
import { builtinTools } from "../src/tools/registry.js";
import { toolContext } from "../test/unit/tools/tool-context.js";
import { startHarness } from "../test/support/acp-harness.js";
import { textTurn, toolTurn } from "../test/support/fake-model/index.js";
import { median, round, type BenchResult } from "./lib.js";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const CHILD = resolve(import.meta.dirname, "peer-child.mjs");
const UPDATES = 2000;
const READS = 200;

export async function runPeersBench(runs = 5): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), "deep-acp-bench-peers-"));
  const file = join(root, "small.txt");
  writeFileSync(file, "one\ntwo\nthree\n");
  try {
    const relayed = await relayedRuns(root, file, runs);
    const direct = await directRuns(file, runs);
    const toEditor = await editorRuns(root, runs);
    const perUpdate = median(relayed.updates) / UPDATES;
    const perUpdateFloor = median(direct.updates) / UPDATES;
    const read = median(relayed.reads);
    const readFloor = median(direct.reads);
    return [
      {
        name: "peer update relayed",
        value: round(perUpdate, 3),
        unit: "ms",
        baseline: round(perUpdateFloor, 3),
        ratio: round(perUpdate / perUpdateFloor, 1),
        note: `${UPDATES} agent_message_chunk per prompt into our events; floor: a bare SDK client collecting them`,
      },
      {
        name: "peer update to the editor",
        value: round(toEditor.perUpdate, 3),
        unit: "ms",
        baseline: round(perUpdateFloor, 3),
        ratio: round(toEditor.perUpdate / perUpdateFloor, 1),
        note: `the whole way: a parent deep-acp (in-process, SDK client) whose task runs the child; (T(${UPDATES}) - T(0)) / ${UPDATES}; the editor got ${toEditor.delivered} chunks (the update stream coalesces text)`,
      },
      {
        name: "peer fs read round trip",
        value: round(read, 3),
        unit: "ms",
        baseline: round(readFloor, 3),
        ratio: round(read / readFloor, 1),
        note: "the child's median of sequential fs/read_text_file through the gate and backend; floor: fs.readFile in a bare client",
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function relayedRuns(root: string, file: string, runs: number) {
  const agent = {
    command: process.execPath,
    args: [CHILD],
    env: {},
    timeout_seconds: 120,
    pass_env: [],
    pass_mcp_servers: false,
  };
  const pool = createPeerPool({ env: process.env, cwd: root });
  const context = toolContext(root, { progress: () => undefined });
  const tools = builtinTools({ supportsImages: false, canExecute: true });
  const events: AgentEvent[] = [];
  const task = async (prompt: string) => {
    const result = await runPeerTask({
      name: "bench",
      config: agent,
      pool,
      prompt,
      description: prompt,
      parentToolCallId: "task-1",
      signal: new AbortController().signal,
      toolCalls: {
        context,
        gate: {
          approver: { requestApproval: async () => "allow_once" },
          memory: createSessionApprovalMemory(),
          mode: "default",
          virtualPrefixes: [],
        },
      },
      tools,
      emit: (event) => void events.push(event as AgentEvent),
      cwd: root,
      errors: { refused: (m) => new Error(m), notFound: (p) => new Error(`Resource not found: ${p}`) },
    });
    if (result.isError) throw new Error(JSON.stringify(result.content));
    return result.content[0]!.type === "text" ? result.content[0]!.text : "";
  };
  const updates: number[] = [];
  const reads: number[] = [];
  try {
    await task(`updates 10`);
    await task(`reads 10 ${file}`);
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await task(`updates ${UPDATES}`);
      updates.push(performance.now() - start);
      reads.push(Number(await task(`reads ${READS} ${file}`)));
      events.length = 0;
    }
  } finally {
    await pool.close();
  }
  return { updates, reads };
}

async function directRuns(file: string, runs: number) {
  const child = spawn(process.execPath, [CHILD], { stdio: ["pipe", "pipe", "inherit"] });
  const stream = acp.ndJsonStream(
    Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
    Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
  );
  const seen: acp.SessionNotification[] = [];
  const connection = acp
    .client({ name: "bench" })
    .onNotification(acp.methods.client.session.update, ({ params }) => void seen.push(params))
    .onRequest(acp.methods.client.fs.readTextFile, async ({ params }) => ({
      content: await readFile(params.path, "utf8"),
    }))
    .connect(stream);
  const agent = connection.agent;
  const task = async (text: string) => {
    const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
    const before = seen.length;
    await agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    const last = seen.slice(before).at(-1)?.update;
    return last?.sessionUpdate === "agent_message_chunk" && last.content.type === "text" ? last.content.text : "";
  };
  const updates: number[] = [];
  const reads: number[] = [];
  // From initialize on, so a child that fails to start is killed too.
  try {
    await agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: {},
    });
    await task("updates 10");
    await task(`reads 10 ${file}`);
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await task(`updates ${UPDATES}`);
      updates.push(performance.now() - start);
      reads.push(Number(await task(`reads ${READS} ${file}`)));
      seen.length = 0;
    }
  } finally {
    connection.close();
    child.kill();
  }
  return { updates, reads };
}

/**
 * Per update the whole way to the editor: a parent deep-acp behind the SDK's client, its fake model
 * asking for a task on the child; a prompt with N updates minus one with none (the two model requests
 * and the task's set-up), over N.
 */
async function editorRuns(root: string, runs: number): Promise<{ perUpdate: number; delivered: number }> {
  const h = await startHarness({
    clientCapabilities: { subagents: {} } as acp.ClientCapabilities,
    setupHome: async (home) => {
      await mkdir(join(home, ".deepagents"), { recursive: true });
      await writeFile(
        join(home, ".deepagents", "config.toml"),
        `[agents.bench]\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(CHILD)}]\n`,
      );
    },
  });
  try {
    const { sessionId } = await h.newSession(root);
    let count = 0;
    h.model.setHandler((request) =>
      request.messages.at(-1)!.role === "user"
        ? toolTurn("task", { description: `updates ${count}`, subagent_type: "bench" })
        : textTurn("done"),
    );
    const prompt = async (n: number) => {
      count = n;
      const start = performance.now();
      await h.prompt(sessionId, "go");
      return performance.now() - start;
    };
    await prompt(10);
    const perUpdate: number[] = [];
    let delivered = 0;
    for (let i = 0; i < runs; i++) {
      const none = await prompt(0);
      h.updates.length = 0;
      const many = await prompt(UPDATES);
      perUpdate.push((many - none) / UPDATES);
      delivered = h.updates.filter(
        (n) => n.sessionId !== sessionId && n.update.sessionUpdate === "agent_message_chunk",
      ).length;
      h.updates.length = 0;
    }
    return { perUpdate: median(perUpdate), delivered };
  } finally {
    await h.close();
  }
}
