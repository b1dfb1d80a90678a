import { describe, expect, it } from "vitest";
import type { AgentProcess } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { textTurn } from "../support/fake-model/index.js";
import { createRandom } from "./fuzz-messages.js";
import { nextHostileLine, rawMember, type HostileContext, type HostileLine } from "./hostile-ids.js";
import { SOAK } from "./soak.js";

// Every request gets exactly one answer carrying its own id, echoed byte for byte, whatever the
// line around it (long, escaped and numeric ids; deep, broken, non-UTF-8, oversized and
// unicode-heavy lines), and `id: null` only when the id cannot be read. Meanwhile one session's
// prompt is held by the model: everything else, that session's other requests included, must be
// answered while it waits, or the connection is blocked behind it. Fixed seed; `npm run test:soak`
// sends 20 times as many lines.

const LINES = SOAK ? 8_000 : 400;
const IN_FLIGHT = 48;
const SEED = 20261201;
const HOLD = "hold the line";
const LIMIT = 1024 * 1024;

let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
const suite = useAgentSuite({
  name: "fuzz-ids",
  lifetime: "file",
  handler: async (request) => {
    if (request.lastUserText === HOLD) await held;
    return textTurn("ok");
  },
});

/** Counts the answers an agent wrote by raw id, against the answers owed. */
function tally(agent: AgentProcess) {
  const owed = new Map<string, number>();
  const got = new Map<string, number>();
  const kinds = new Map<string, number>();
  let owedTotal = 0;
  let answers = 0;
  let seen = agent.lines.length;
  const collect = () => {
    for (; seen < agent.lines.length; seen++) {
      const line = agent.lines[seen]!;
      if (rawMember(line, "method") !== undefined) continue;
      const id = rawMember(line, "id");
      // The harness's own requests use small numbers; anything else not owed is a made-up id.
      if (id === undefined || (!owed.has(id) && /^\d{1,3}$/.test(id))) continue;
      got.set(id, (got.get(id) ?? 0) + 1);
      answers++;
    }
  };
  return {
    owe(line: HostileLine) {
      const kind = line.kind.replace(/ \(.*\)$/, "");
      kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      if (line.expectId === undefined) return;
      owed.set(line.expectId, (owed.get(line.expectId) ?? 0) + 1);
      owedTotal++;
    },
    outstanding() {
      collect();
      return owedTotal - answers;
    },
    report() {
      collect();
      const ids = (entries: Array<[string, number]>) => entries.slice(0, 5).map(([id]) => id.slice(0, 80));
      return {
        owed: owedTotal,
        kinds: [...kinds].map(([k, v]) => `${k} ${v}`).join(", "),
        missing: ids([...owed].filter(([id, count]) => (got.get(id) ?? 0) < count)),
        extra: ids([...owed].filter(([id, count]) => (got.get(id) ?? 0) > count)),
        madeUp: ids([...got].filter(([id]) => !owed.has(id))),
      };
    },
  };
}

const send = (agent: AgentProcess, lines: HostileLine[]) =>
  agent.writeRaw(Buffer.concat(lines.flatMap((line) => [line.bytes, Buffer.from("\n")])) as unknown as string);

describe("request ids under fuzz", () => {
  it(
    `answers each of ${LINES} hostile lines' requests once, with its own id, while a prompt is held`,
    { timeout: SOAK ? 1_800_000 : 120_000 },
    async () => {
      const agent = await suite.start({ args: ["--max-message-bytes", String(LIMIT)] });
      agent.child.stdin.on("error", () => undefined);
      await agent.initialize();
      const open = async () =>
        (await agent.request("session/new", { cwd: suite.project, mcpServers: [] })).result.sessionId as string;
      const busy = await open();
      const ctx: HostileContext = {
        cwd: suite.project,
        sessions: [await open(), await open()],
        busySession: busy,
        maxDepth: 256,
        maxMessageBytes: LIMIT,
      };
      const slow = agent.request("session/prompt", { sessionId: busy, prompt: [{ type: "text", text: HOLD }] });
      let slowAnswered = false;
      void slow.then(() => (slowAnswered = true));
      await suite.model.waitForRequests(1);

      const count = tally(agent);
      const rnd = createRandom(SEED);
      const started = Date.now();
      let stalls = 0;
      for (let n = 0; n < LINES; n++) {
        if (agent.child.exitCode !== null) break;
        if (count.outstanding() >= IN_FLIGHT) {
          // A window full of requests nobody answers: the stall an editor would see.
          await agent.waitFor(() => count.outstanding() < IN_FLIGHT, 60_000).catch(() => stalls++);
          if (count.outstanding() >= IN_FLIGHT) break;
        }
        const line = nextHostileLine(n, ctx, rnd);
        count.owe(line);
        send(agent, [line]);
        // Sessions the fuzz opened join the pool (never the busy one).
        if (n % 50 === 0) {
          for (const l of agent.lines.slice(-50)) {
            const sessionId = /"result":\{"sessionId":"([0-9a-f-]{36})"/.exec(l)?.[1];
            if (sessionId && sessionId !== busy && !ctx.sessions.includes(sessionId)) ctx.sessions.push(sessionId);
          }
        }
      }
      await agent.waitFor(() => count.outstanding() <= 0, 60_000).catch(() => undefined);
      const report = count.report();
      console.log(
        `fuzz ids: ${LINES} lines (${report.kinds}) in ${((Date.now() - started) / 1000).toFixed(1)} s; ` +
          `${report.owed} answers owed, missing ${report.missing.length}, extra ${report.extra.length}, ` +
          `made-up ids ${report.madeUp.length}; stalls ${stalls}; deaths ${agent.child.exitCode === null ? 0 : 1}`,
      );
      expect(agent.child.exitCode).toBeNull();
      expect(report.missing).toEqual([]);
      expect(report.extra).toEqual([]);
      expect(report.madeUp).toEqual([]);
      expect(stalls).toBe(0);
      // Everything above was answered while the held prompt waited.
      expect(slowAnswered).toBe(false);
      release();
      expect((await slow).result?.stopReason).toBe("end_turn");
    },
  );

  it("answers hostile lines sent with the first initialize and session/new, each with its id", async () => {
    const agent = await suite.start({ args: ["--max-message-bytes", String(LIMIT)] });
    agent.child.stdin.on("error", () => undefined);
    const count = tally(agent);
    const rnd = createRandom(SEED + 1);
    const ctx: HostileContext = { cwd: suite.project, sessions: [], maxDepth: 256, maxMessageBytes: LIMIT };
    const hostile = Array.from({ length: 60 }, (_, n) => nextHostileLine(n, ctx, rnd));
    hostile.forEach((line) => count.owe(line));
    // One write: the early handshake answers the first two, the rest waits for the SDK.
    agent.writeRaw(
      `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}\n` +
        `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: suite.project, mcpServers: [] } })}\n`,
    );
    send(agent, hostile);
    await agent.waitFor(() => count.outstanding() <= 0).catch(() => undefined);
    const report = count.report();
    expect(report.missing).toEqual([]);
    expect(report.extra).toEqual([]);
    expect(report.madeUp).toEqual([]);
    expect(agent.messages.find((m) => m.id === 2)?.result?.sessionId).toBeDefined();
  });
});
