import { describe, expect, it } from "vitest";
import type { JsonRpcMessage } from "../support/agent-process.js";
import { useAgentSuite } from "../support/agent-suite.js";
import { createRandom, nextFuzzLine, type FuzzContext } from "./fuzz-messages.js";
import { rssMb, SOAK } from "./soak.js";

// Protocol fuzzing with a fixed seed: thousands of lines of valid, mutated and broken JSON-RPC,
// as fast as the agent answers them. Counted: deaths, requests not answered, requests answered
// twice, RSS growth. `npm test` runs a short pass; `npm run test:soak` the 10,000-message one.

const MESSAGES = SOAK ? 10_000 : 600;
const IN_FLIGHT = 32;
const SEED = 20261130;

const suite = useAgentSuite({ name: "fuzz", lifetime: "file" });

describe("protocol fuzz", () => {
  it(
    `answers every one of ${MESSAGES} fuzzed messages once and stays up`,
    { timeout: SOAK ? 1_800_000 : 120_000 },
    async () => {
      const agent = await suite.start({
        args: ["--max-message-bytes", String(1024 * 1024)],
        onRequest: () => ({ outcome: { outcome: "cancelled" } }),
      });
      agent.child.stdin.on("error", () => undefined);
      await agent.initialize();
      const rnd = createRandom(SEED);
      const ctx: FuzzContext = { cwd: suite.project, sessions: [], maxDepth: 256, hugeBytes: 2 * 1024 * 1024 };
      const owed = new Map<string, string>();
      let nullOwed = 0;
      const answers = new Map<string, number>();
      let nullAnswers = 0;
      let seen = 0;
      const collect = () => {
        for (; seen < agent.messages.length; seen++) {
          const message = agent.messages[seen] as JsonRpcMessage;
          if (message.method !== undefined) continue;
          if (message.id === null) nullAnswers++;
          else if (typeof message.id === "string" && message.id.startsWith("f")) {
            answers.set(message.id, (answers.get(message.id) ?? 0) + 1);
            if (owed.get(message.id)?.startsWith("request session/new") && message.result?.sessionId)
              ctx.sessions.push(message.result.sessionId);
          }
        }
      };
      const outstanding = () => {
        collect();
        let open = 0;
        for (const id of owed.keys()) if (!answers.has(id)) open++;
        return open;
      };
      const rssStart = rssMb(agent.child.pid!);
      let rssPeak = rssStart;
      const kinds = new Map<string, number>();
      const started = Date.now();
      for (let n = 0; n < MESSAGES; n++) {
        if (agent.child.exitCode !== null || agent.child.signalCode !== null) break;
        if (outstanding() >= IN_FLIGHT) await agent.waitFor(() => outstanding() < IN_FLIGHT, 60_000);
        const line = nextFuzzLine(n, ctx, rnd);
        kinds.set(line.kind.split(" ")[0]!, (kinds.get(line.kind.split(" ")[0]!) ?? 0) + 1);
        if (line.expectId) owed.set(line.expectId, line.kind);
        if (line.expectNull) nullOwed++;
        agent.writeRaw(`${line.text}\n`);
        if (n % 200 === 0) rssPeak = Math.max(rssPeak, rssMb(agent.child.pid!));
      }
      let hung = false;
      await agent.waitFor(() => outstanding() === 0 && nullAnswers >= nullOwed, 60_000).catch(() => (hung = true));
      const deaths = agent.child.exitCode !== null || agent.child.signalCode !== null ? 1 : 0;
      const rssEnd = deaths ? rssPeak : rssMb(agent.child.pid!);
      rssPeak = Math.max(rssPeak, rssEnd);
      const missing = [...owed].filter(([id]) => !answers.has(id));
      const twice = [...answers].filter(([, count]) => count > 1);
      console.log(
        `fuzz: ${MESSAGES} messages (${[...kinds].map(([k, v]) => `${k} ${v}`).join(", ")}) in ${Math.round((Date.now() - started) / 1000)} s; ` +
          `deaths ${deaths}, hung ${hung ? 1 : 0}, requests owed ${owed.size}, missing ${missing.length}, answered twice ${twice.length}, ` +
          `id:null owed ${nullOwed} got ${nullAnswers}; sessions opened ${ctx.sessions.length}; RSS ${rssStart.toFixed(0)} -> ${rssEnd.toFixed(0)} MB (peak ${rssPeak.toFixed(0)})`,
      );
      expect(deaths).toBe(0);
      expect(missing.slice(0, 5)).toEqual([]);
      expect(twice).toEqual([]);
      expect(nullAnswers).toBe(nullOwed);
      expect(rssPeak - rssStart).toBeLessThan(SOAK ? 300 : 200);
      await agent.stop();
    },
  );
});
