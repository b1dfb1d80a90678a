// session/load of a 2,000-message session and session/list over 1,000 sessions, measured through the
// built agent over stdio (request sent -> response received), in a fresh process per load.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { createSessionStore } from "../src/transcript/store/index.js";
import type { SessionRecord } from "../src/transcript/restore.js";
import { median, ndjsonChild, round, spread, type BenchResult } from "./lib.js";

const BINARY = resolve(import.meta.dirname, "../dist/deep-acp.js");
/** lib's "min-max" with its unit and sample count, e.g. "3.1-4.2 ms over 10 runs". */
const msSpread = (values: number[]) => `${spread(values)} ms over ${values.length} runs`;

function words(n: number, seed: number): string {
  const vocab = [
    "the",
    "function",
    "returns",
    "a",
    "promise",
    "when",
    "every",
    "write",
    "reached",
    "file",
    "session",
    "tool",
  ];
  let out = "";
  for (let i = 0; i < n; i++) out += `${vocab[(seed * 31 + i * 7) % vocab.length]} `;
  return out;
}

/** A conversation of `messages` model messages: prompt, reply with a tool call, tool result, answer. */
function conversation(messages: number): SessionRecord[] {
  const records: SessionRecord[] = [];
  let count = 0;
  for (let turn = 0; count < messages; turn++) {
    const user = `u${turn}`;
    const mid = `a${turn}`;
    const call = `c${turn}`;
    const prompt = words(40, turn);
    records.push({
      t: "user",
      id: user,
      blocks: [{ type: "text", text: prompt }],
      message: { role: "user", content: [{ type: "text", text: prompt }] },
    });
    records.push({ t: "text", mid, text: words(120, turn + 1) });
    records.push({
      t: "msg",
      mid,
      message: {
        role: "assistant",
        content: [
          { type: "text", text: words(120, turn + 1) },
          { type: "tool_call", id: call, name: "read_file", input: { file_path: `/p/src/m${turn}.ts` } },
        ],
      },
    });
    records.push({
      t: "tool",
      call: {
        id: call,
        name: "read_file",
        title: `Read src/m${turn}.ts`,
        kind: "read",
        locations: [{ path: `/p/src/m${turn}.ts`, line: 1 }],
        rawInput: { file_path: `/p/src/m${turn}.ts` },
      },
    });
    const output = words(500, turn + 2);
    records.push({ t: "tool_done", id: call, status: "completed", content: [{ type: "text", text: output }] });
    records.push({
      t: "msg",
      message: {
        role: "tool",
        toolCallId: call,
        toolName: "read_file",
        content: [{ type: "text", text: output }],
        isError: false,
      },
    });
    records.push({ t: "text", mid: `${mid}b`, text: words(80, turn + 3) });
    records.push({
      t: "msg",
      mid: `${mid}b`,
      message: { role: "assistant", content: [{ type: "text", text: words(80, turn + 3) }] },
    });
    records.push({ t: "turn_end", stopReason: "end_turn" });
    count += 4;
  }
  return records;
}

/** A HOME with one 2,000-message session ("big") and 999 small ones. */
export async function seedSessions(home: string, project: string): Promise<void> {
  const store = createSessionStore({ dir: join(home, ".deepagents", "sessions") });
  await store.create({ id: "big", cwd: project, title: "a long conversation" });
  for (const record of conversation(2000)) void store.append("big", record as unknown as Record<string, unknown>);
  await store.flush("big");
  for (let i = 0; i < 999; i++)
    await store.create({ id: `s${i}`, cwd: i % 2 ? project : "/elsewhere", title: `session ${i}` });
}

export async function runSessionsBench(runs = 7): Promise<BenchResult[]> {
  const home = mkdtempSync(join(tmpdir(), "deep-acp-bench-sessions-"));
  const project = mkdtempSync(join(tmpdir(), "deep-acp-bench-project-"));
  try {
    await seedSessions(home, project);

    const env = {
      PATH: process.env.PATH,
      HOME: home,
      ANTHROPIC_API_KEY: "k",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9",
    };
    const loads: number[] = [];
    const lists: number[] = [];
    let updates = 0;
    for (let i = 0; i < runs; i++) {
      const agent = ndjsonChild(process.execPath, [BINARY], env);
      agent.send({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: 1, clientCapabilities: {} },
      });
      await agent.next((m) => m.id === 1);
      // initialize is answered before the ACP SDK has loaded; an unknown method's -32601 comes from
      // the SDK, so once it is back the agent is up and what follows times the store, not the load.
      agent.send({ jsonrpc: "2.0", id: "up", method: "_bench/ping", params: {} });
      await agent.next((m) => m.id === "up");
      let start = performance.now();
      agent.send({ jsonrpc: "2.0", id: 2, method: "session/list", params: {} });
      await agent.next((m) => m.id === 2);
      lists.push(performance.now() - start);
      start = performance.now();
      agent.send({
        jsonrpc: "2.0",
        id: 3,
        method: "session/load",
        params: { sessionId: "big", cwd: project, mcpServers: [] },
      });
      const response = await agent.next((m) => m.id === 3);
      loads.push(performance.now() - start);
      if (response.error) throw new Error(`session/load failed: ${JSON.stringify(response.error)}`);
      updates = agent.seen.filter((m) => m.method === "session/update").length;
      await agent.stop();
    }
    return [
      {
        name: "sessions.load-2000-messages",
        value: round(median(loads)),
        unit: "ms",
        target: "<= 150 ms",
        note: `${updates} updates replayed; spread ${msSpread(loads)}`,
      },
      {
        name: "sessions.list-1000",
        value: round(median(lists)),
        unit: "ms",
        target: "<= 40 ms",
        note: `first page, fresh process; spread ${msSpread(lists)}`,
      },
    ];
  } finally {
    rmSync(home, { recursive: true, force: true });
    rmSync(project, { recursive: true, force: true });
  }
}
