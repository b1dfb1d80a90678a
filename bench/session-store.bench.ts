// Session store benchmark: session/load of a 2,000-message session and session/list over 1,000
// sessions (targets: under 300 ms and 50 ms). Prints one JSON line per measurement.
//
//   node --import tsx bench/session-store.bench.ts [--runs N]
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createSessionStore, type StoreRecord } from "../src/transcript/store/index.js";

export type SessionStoreBenchResult = { name: string; ms: number; runs: number; [detail: string]: unknown };

export type SessionStoreBenchOptions = {
  /** Measured runs per benchmark (median reported); default 9, at least 7. */
  runs?: number;
  /** Messages in the large session; default 2,000. */
  messages?: number;
  /** Sessions for list(); default 1,000. */
  sessions?: number;
  /** Where result lines go; default console.log of the JSON. */
  report?: (result: SessionStoreBenchResult) => void;
};

/** Deterministic text so runs compare: a small LCG over a fixed vocabulary. */
function textGenerator(seed = 42) {
  const words = (
    "the function returns a promise that resolves when every pending write has reached the file so callers " +
    "can await it before reading back the session log which holds user prompts assistant text tool calls and results"
  ).split(" ");
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648);
  return (approxChars: number) => {
    let out = "";
    while (out.length < approxChars) out += (out ? " " : "") + words[next() % words.length];
    return out;
  };
}

/** A realistic turn mix: prompts, coalesced assistant text, thinking, tool calls with a few KB of output. */
export function realisticRecords(count: number, seed = 42): StoreRecord[] {
  const text = textGenerator(seed);
  const records: StoreRecord[] = [];
  for (let i = 0; records.length < count; i += 1) {
    const id = `call_${i}`;
    const turn: StoreRecord[] = [
      { type: "user_message", messageId: `m${i}`, content: [{ type: "text", text: text(240) }] },
      { type: "thinking", text: text(400) },
      { type: "assistant_text", text: text(1800) },
      {
        type: "tool_call",
        toolCallId: id,
        name: "read_file",
        args: { file_path: `/home/me/project/src/module-${i}.ts`, offset: 0, limit: 200 },
      },
      { type: "tool_result", toolCallId: id, status: "completed", output: text(3000 + ((i * 7919) % 2000)) },
      { type: "assistant_text", text: text(900) },
    ];
    records.push(...turn.slice(0, count - records.length));
  }
  return records;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function measure(
  runs: number,
  before: (() => Promise<void>) | undefined,
  task: () => Promise<unknown>,
): Promise<number[]> {
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    if (before) await before();
    (globalThis as { gc?: () => void }).gc?.();
    const start = performance.now();
    await task();
    times.push(performance.now() - start);
  }
  return times;
}

const round = (ms: number) => Math.round(ms * 100) / 100;

export async function runSessionStoreBench(options: SessionStoreBenchOptions = {}): Promise<SessionStoreBenchResult[]> {
  const runs = Math.max(7, options.runs ?? 9);
  const messageCount = options.messages ?? 2000;
  const sessionCount = options.sessions ?? 1000;
  const report = options.report ?? ((result) => console.log(JSON.stringify(result)));
  const root = await mkdtemp(join(tmpdir(), "deep-acp-bench-sessions-"));
  const dir = join(root, "sessions");
  const results: SessionStoreBenchResult[] = [];
  const emit = (result: SessionStoreBenchResult) => {
    results.push(result);
    report(result);
  };
  try {
    const setup = createSessionStore({ dir });
    const big = realisticRecords(messageCount);
    await setup.create({ id: "big", cwd: "/home/me/project", title: "Large session" });
    await setup.rewrite("big", big);
    const small = realisticRecords(12, 7);
    for (let i = 0; i < sessionCount; i += 1) {
      const id = `session-${String(i).padStart(5, "0")}`;
      await setup.create({
        id,
        cwd: `/home/me/project-${i % 4}`,
        createdAt: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(),
      });
      await setup.rewrite(id, small);
      await setup.updateMeta(id, {
        title: `Session ${i}`,
        updatedAt: new Date(Date.UTC(2026, 1, 1) + i * 60_000).toISOString(),
      });
    }
    const { size } = await stat(join(dir, "big.jsonl"));

    const readTimes = await measure(runs, undefined, async () => {
      const { records } = await createSessionStore({ dir }).read("big");
      if (records.length !== messageCount) throw new Error(`read ${records.length} of ${messageCount} records`);
    });
    emit({
      name: "session-store.read-2000-messages",
      ms: round(median(readTimes)),
      runs,
      targetMs: 300,
      messages: messageCount,
      logBytes: size,
      maxMs: round(Math.max(...readTimes)),
    });

    // A new agent process answering session/list: index.json exists (built by an earlier list).
    await setup.list();
    await setup.flush();
    const listTimes = await measure(runs, undefined, async () => {
      const page = await createSessionStore({ dir }).list({ limit: 50 });
      if (page.sessions.length !== 50) throw new Error("short page");
    });
    emit({
      name: "session-store.list-1000",
      ms: round(median(listTimes)),
      runs,
      targetMs: 50,
      sessions: sessionCount + 1,
      maxMs: round(Math.max(...listTimes)),
    });

    const warm = createSessionStore({ dir });
    await warm.list();
    const warmTimes = await measure(runs, undefined, () => warm.list({ limit: 50 }));
    emit({
      name: "session-store.list-1000-same-process",
      ms: round(median(warmTimes)),
      runs,
      sessions: sessionCount + 1,
    });

    // Index lost (first run after an upgrade, or deleted): every log's meta is rebuilt.
    const rebuildTimes = await measure(
      runs,
      () => rm(join(dir, "index.json"), { force: true }),
      () => createSessionStore({ dir }).list({ limit: 50 }),
    );
    emit({
      name: "session-store.list-1000-rebuild",
      ms: round(median(rebuildTimes)),
      runs,
      sessions: sessionCount + 1,
    });

    const appender = createSessionStore({ dir });
    await appender.create({ id: "appends", cwd: "/home/me/project" });
    const appendTimes = await measure(runs, undefined, async () => {
      for (const record of big.slice(0, 1000)) await appender.append("appends", record);
    });
    // 1,000 records per run, so the median in ms is also the cost per record in µs.
    emit({
      name: "session-store.append-1000",
      ms: round(median(appendTimes)),
      runs,
      perRecordUs: round(median(appendTimes)),
    });
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  return results;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf("--runs");
  await runSessionStoreBench(at > 0 ? { runs: Number(process.argv[at + 1]) } : {});
}
