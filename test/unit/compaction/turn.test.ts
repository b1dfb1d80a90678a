import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createSessionApprovalMemory } from "../../../src/gate/memory/approval-memory.js";
import { createCompactor, SUMMARY_SYSTEM_PROMPT } from "../../../src/turn/compaction/compactor.js";
import { isTurnReport, type AgentEvent } from "../../../src/agent/events.js";
import { runTurn, type TurnOptions } from "../../../src/agent/loop.js";
import { createResultOffloader } from "../../../src/turn/compaction/offload.js";
import type { Message, ModelClient } from "../../../src/model/types.js";
import { defineTool } from "../../../src/tools/define-tool.js";
import { createReadFileTool } from "../../../src/tools/files/read-file.js";
import type { AnyTool } from "../../../src/tools/types.js";
import {
  createFakeModelServer,
  textTurn,
  toolTurn,
  type FakeModelServer,
  type RecordedRequest,
} from "../../support/fake-model/index.js";
import { assistant, fakeAnthropic, filler, readText, sessionBackends, toolResult, user } from "./helpers.js";

// The loop with the real Anthropic client, the fake model server and real backends: what the model
// is sent after a large tool result and after a compaction.

let server: FakeModelServer;
beforeEach(async () => {
  server = await createFakeModelServer();
});
afterEach(async () => {
  await server.close();
});

const LOG = Array.from({ length: 5000 }, (_, i) => `log line ${i + 1} ${"x".repeat(20)}`).join("\n"); // ~150,000 chars

const dumpLogs: AnyTool = defineTool({
  name: "dump_logs",
  hookName: "dump_logs",
  description: "Prints the service logs.",
  kind: "other",
  effect: "none",
  schema: z.object({}),
  present: () => ({ title: "Dump logs" }),
  execute: async () => ({ content: [{ type: "text", text: LOG }] }),
});

type TurnSetup = {
  model: ModelClient;
  context: TurnOptions["toolCalls"]["context"];
  finalizeResult?: TurnOptions["toolCalls"]["finalizeResult"];
  prepareMessages?: TurnOptions["compact"];
};

function turnOptions(setup: TurnSetup, events: AgentEvent[]): TurnOptions {
  let id = 0;
  return {
    model: {
      client: setup.model,
      system: "You are a test agent.",
      tools: [dumpLogs, createReadFileTool()],
      maxRequests: 10,
    },
    toolCalls: {
      context: setup.context,
      gate: {
        mode: "bypass",
        virtualPrefixes: ["/large_tool_results/", "/conversation_history/"],
        approver: { requestApproval: async () => "allow_once" },
        memory: createSessionApprovalMemory(),
      },
      ...(setup.finalizeResult ? { finalizeResult: setup.finalizeResult } : {}),
    },
    ...(setup.prepareMessages ? { compact: setup.prepareMessages } : {}),
    signal: new AbortController().signal,
    emit: (event) => void (isTurnReport(event) || events.push(event)),
    newId: () => `id-${++id}`,
  };
}

const context = (backend: ReturnType<typeof sessionBackends>["backend"]) => ({
  sessionId: "sess-9",
  cwd: "/p",
  roots: ["/p"],
  backend,
  limits: { shellTimeoutMs: 10_000, shellOutputChars: 30_000 },
});

function lastTool(request: RecordedRequest) {
  return request.messages.filter((m) => m.role === "tool").at(-1)!;
}

/** Every tool result the model receives answers a call of an earlier assistant message. */
function orphanedResults(request: RecordedRequest): string[] {
  const calls = new Set<string>();
  const orphans: string[] = [];
  for (const m of request.messages) {
    for (const call of m.toolCalls ?? []) calls.add(call.id);
    if (m.role === "tool" && !calls.has(m.toolCallId!)) orphans.push(m.toolCallId!);
  }
  return orphans;
}

describe("a turn with a large tool result", () => {
  it("sends the model a preview and the path, and the model can read the saved result back", async () => {
    server.enqueue(toolTurn("dump_logs", {}));
    server.setHandler((request) => {
      const path = /at this path: (\S+)/.exec(lastTool(request).text)?.[1];
      if (path && request.messages.filter((m) => m.role === "tool").length === 1)
        return toolTurn("read_file", { file_path: path, offset: 2499, limit: 2 });
      return textTurn("done");
    });
    const { backend } = sessionBackends();
    const events: AgentEvent[] = [];
    const result = await runTurn(
      [],
      user("show me the logs"),
      turnOptions(
        {
          model: fakeAnthropic(server, 200_000),
          context: context(backend),
          finalizeResult: createResultOffloader({ backend }),
        },
        events,
      ),
    );
    expect(result.stopReason).toBe("end_turn");

    const offloaded = lastTool(server.requests[1]!).text;
    expect(offloaded).toMatch(
      /^Tool result too large, the result of this tool call id-\d+ was saved in the filesystem at this path: \/large_tool_results\/id-\d+\.txt\n/,
    );
    expect(offloaded).toContain("     1\tlog line 1 ");
    expect(offloaded).toContain("... [4990 lines truncated] ...");
    expect(offloaded).toContain("  5000\tlog line 5000 ");
    expect(offloaded.length).toBeLessThan(2000);

    const path = /at this path: (\S+)/.exec(offloaded)![1]!;
    expect(await readText(backend, path)).toBe(LOG);
    // read_file is never offloaded: the model gets the lines it asked for.
    expect(lastTool(server.requests[2]!).text).toMatch(/^  2500\tlog line 2500 x+\n  2501\tlog line 2501 x+/);

    // The editor still shows the real output.
    const update = events.find(
      (e) =>
        e.type === "tool_call_update" &&
        e.status === "completed" &&
        e.content?.[0]?.type === "text" &&
        e.content[0].text.startsWith("log line 1 "),
    );
    expect(update).toBeDefined();
  });
});

describe("a turn that reaches the compaction trigger", () => {
  const history = (): Message[] => [
    user(`OLD-U1 set up the project ${filler("setup", 1200)}`),
    assistant("OLD-A1", { id: "h1", name: "read_file", input: { file_path: "/p/a.ts" } }),
    toolResult("h1", "read_file", `OLD-R1 ${filler("contents", 1500)}`),
    assistant("OLD-A2 looked at it"),
    user("KEPT-U2 now check b"),
    assistant(
      "KEPT-A3",
      { id: "h2", name: "read_file", input: { file_path: "/p/b.ts" } },
      { id: "h3", name: "read_file", input: { file_path: "/p/c.ts" } },
    ),
    toolResult("h2", "read_file", "KEPT-R2 b"),
    toolResult("h3", "read_file", "KEPT-R3 c"),
    assistant("KEPT-A4 both fine"),
  ];

  it("summarizes the older messages first and sends the model the summary and the recent messages", async () => {
    const summaries: RecordedRequest[] = [];
    const main = [toolTurn("dump_logs", {}), textTurn("finished")];
    server.setHandler((request) => {
      if (request.system === SUMMARY_SYSTEM_PROMPT) {
        summaries.push(request);
        return textTurn("LOOP-SUMMARY: project set up, a.ts read.");
      }
      return main.shift() ?? textTurn("unexpected");
    });
    const { backend } = sessionBackends();
    const events: AgentEvent[] = [];
    const model = fakeAnthropic(server, 800); // trigger: 680 tokens ≈ 2,720 characters
    const compactor = createCompactor({
      model,
      backend,
      sessionId: "sess-9",
      emit: (e) => void events.push(e),
      keepMessages: 6,
      summaryInputTokens: 4000,
    });
    const prompt = user("NEW-U3 what do the logs say?");
    const result = await runTurn(
      history(),
      prompt,
      turnOptions(
        {
          model,
          context: context(backend),
          prepareMessages: compactor.prepareMessages,
          finalizeResult: createResultOffloader({ backend, thresholdChars: 1000 }),
        },
        events,
      ),
    );
    expect(result.stopReason).toBe("end_turn");

    // One summary, before the first model request; the second request reuses it.
    expect(summaries).toHaveLength(1);
    expect(server.requests.map((r) => r.system === SUMMARY_SYSTEM_PROMPT)).toEqual([true, false, false]);
    expect(summaries[0]!.messages[0]!.text).toContain("OLD-U1");
    expect(summaries[0]!.messages[0]!.text).toContain("OLD-R1");
    expect(summaries[0]!.messages[0]!.text).not.toContain("KEPT-");

    for (const request of server.requests.slice(1)) {
      const [first, ...rest] = request.messages;
      expect(first!.role).toBe("user");
      expect(first!.text).toContain("<summary>\nLOOP-SUMMARY: project set up, a.ts read.\n</summary>");
      expect(first!.text).toContain("/conversation_history/sess-9.md");
      const all = request.messages.map((m) => m.text).join("\n");
      expect(all).not.toContain("OLD-");
      for (const tag of ["KEPT-U2", "KEPT-A3", "KEPT-R2", "KEPT-R3", "KEPT-A4", "NEW-U3"]) expect(all).toContain(tag);
      expect(rest.length).toBeGreaterThan(0);
      expect(orphanedResults(request)).toEqual([]);
    }
    // The large result in the same turn was offloaded too.
    expect(lastTool(server.requests[2]!).text).toMatch(/^Tool result too large/);

    expect(await readText(backend, "/conversation_history/sess-9.md")).toContain("OLD-R1");
    expect(events.filter((e) => e.type === "compaction").map((e) => (e as { status: string }).status)).toEqual([
      "in_progress",
      "completed",
    ]);
  });
});
