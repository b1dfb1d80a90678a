// Who pays for the interpreter's worker thread (10+ MB with QuickJS loaded): only a turn whose model
// calls eval. A text-only turn starts none, so idle sessions hold none; an eval turn starts it while
// the call streams in, and closing the session leaves no thread behind.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { readdir } from "node:fs/promises";
import { expect, it } from "vitest";
import { gitProject, useHarnessSuite } from "../support/harness-suite.js";
import { textTurn, toolTurn, type RecordedRequest } from "../support/fake-model/index.js";
import { pollUntil } from "../support/poll.js";

const suite = useHarnessSuite({ name: "eval-worker", prepare: gitProject });

/** Threads of this process (Linux). */
const threads = async () => (await readdir("/proc/self/task")).length;

const lastToolResult = (request: RecordedRequest) => request.messages.filter((m) => m.role === "tool").at(-1)?.text;

it.runIf(process.platform === "linux")(
  "starts no interpreter worker for text-only turns, one for an eval turn, and none is left once the session closes",
  async () => {
    const h = await suite.start();
    // A first session and turn, so that the thread pools every turn uses exist before counting.
    const warm = await h.newSession(suite.project);
    h.model.enqueue(textTurn("warm"));
    await h.prompt(warm.sessionId, "hi");
    const idle = await threads();

    const { sessionId } = await h.newSession(suite.project);
    h.model.enqueue(textTurn("just text"));
    await h.prompt(sessionId, "talk");
    h.model.enqueue(textTurn("more text"));
    await h.prompt(sessionId, "talk again");
    expect(await threads()).toBe(idle);

    h.model.enqueue(toolTurn("eval", { code: "globalThis.n = 20; n + 1" }), textTurn("done"));
    await h.prompt(sessionId, "compute");
    expect(lastToolResult(h.model.requests.at(-1)!)).toContain("21");
    expect(await threads()).toBeGreaterThan(idle); // the worker (its own thread, and what it starts)

    // The session works as before after its worker went away, and starts a new one for the next eval.
    await h.agent.request(acp.methods.agent.session.close, { sessionId });
    await pollUntil(async () => (await threads()) === idle, "the interpreter worker to exit with its session");
    const again = await h.newSession(suite.project);
    h.model.enqueue(toolTurn("eval", { code: "6 * 7" }), textTurn("done"));
    await h.prompt(again.sessionId, "compute again");
    expect(lastToolResult(h.model.requests.at(-1)!)).toContain("42");
  },
);
