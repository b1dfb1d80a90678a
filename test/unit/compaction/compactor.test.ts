import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createCompactor,
  SUMMARY_SYSTEM_PROMPT,
  type CompactorOptions,
} from "../../../src/turn/compaction/compactor.js";
import { createStateBackend } from "../../../src/backends/state/state-backend.js";
import type { Message } from "../../../src/model/types.js";
import { createFakeModelServer, textTurn, type FakeModelServer } from "../../support/fake-model/index.js";
import {
  assistant,
  collectEvents,
  fakeAnthropic,
  filler,
  pairingProblems,
  readText,
  sessionBackends,
  toolResult,
  user,
} from "./helpers.js";

let server: FakeModelServer;
beforeEach(async () => {
  server = await createFakeModelServer();
});
afterEach(async () => {
  await server.close();
});

const AT = new Date("2026-03-04T05:06:07.000Z");

/** Twelve messages; the naive cut for keep=6 (index 6) lands on a tool result of a two-call exchange. */
function conversation(): Message[] {
  return [
    user(`OLD-U1 please refactor the parser ${filler("old1", 400)}`),
    assistant("OLD-A1 reading", { id: "c1", name: "read_file", input: { file_path: "/p/parser.ts" } }),
    toolResult("c1", "read_file", `OLD-R1 ${filler("parser", 600)}`),
    assistant("OLD-A2 writing", {
      id: "c2",
      name: "write_file",
      input: { file_path: "/p/parser.ts", content: "w".repeat(2500) },
    }),
    toolResult("c2", "write_file", "OLD-R2 written"),
    assistant(
      "KEPT-A3 checking",
      { id: "c3", name: "execute", input: { command: "npm test" } },
      { id: "c4", name: "grep", input: { pattern: "TODO" } },
    ),
    toolResult("c3", "execute", `KEPT-R3 ${filler("tests", 300)}`),
    toolResult("c4", "grep", "KEPT-R4 none"),
    assistant("KEPT-A4 all green"),
    user("KEPT-U2 now add docs"),
    assistant("KEPT-A5 adding", { id: "c5", name: "ls", input: { path: "/p" } }),
    toolResult("c5", "ls", "KEPT-R5 parser.ts"),
  ];
}

function compactorFor(options: Partial<CompactorOptions> = {}) {
  const backends = sessionBackends();
  const { events, emit } = collectEvents();
  let id = 0;
  const compactor = createCompactor({
    model: fakeAnthropic(server, 1000),
    backend: backends.backend,
    sessionId: "sess-1",
    emit,
    now: () => AT,
    newId: () => `cmp-${++id}`,
    ...options,
  });
  return { compactor, events, ...backends };
}

describe("compaction", () => {
  it("summarizes the older messages with the model and keeps tool call/result pairs together", async () => {
    server.enqueue(textTurn("SUMMARY-ONE: the parser was refactored."));
    const { compactor, events, backend, history } = compactorFor();
    const messages = conversation();
    const result = await compactor.compact(messages, "manual", new AbortController().signal);
    if (result.kind !== "compacted") throw new Error(`expected compacted, got ${JSON.stringify(result)}`);

    // One summarizer request: no tools, our system prompt, the older part as a transcript.
    expect(server.requests).toHaveLength(1);
    const request = server.requests[0]!;
    expect(request.system).toBe(SUMMARY_SYSTEM_PROMPT);
    expect(request.toolNames).toEqual([]);
    expect(request.messages).toHaveLength(1);
    const sent = request.messages[0]!.text;
    for (const tag of ["OLD-U1", "OLD-A1", "OLD-R1", "OLD-A2", "OLD-R2", '"file_path":"/p/parser.ts"'])
      expect(sent).toContain(tag);
    expect(sent).not.toContain("KEPT-");
    expect(sent).toContain("wwwwwwwwwwwwwwwwwwww...(argument truncated)");
    expect(sent).not.toContain("w".repeat(21));

    // The naive cut (12 - 6 = 6) would separate c3/c4 from their results: the cut moved to the call.
    expect(result.summarizedCount).toBe(5);
    expect(result.messages).toHaveLength(8);
    expect(result.messages.slice(1)).toEqual(messages.slice(5));
    result.messages.slice(1).forEach((m, i) => expect(m).toBe(messages[5 + i]));
    expect(pairingProblems(result.messages)).toEqual([]);
    expect(result.messages[0]).toEqual({
      role: "user",
      content: [
        {
          type: "text",
          text:
            "You are in the middle of a conversation that has been summarized.\n\n" +
            "The full conversation history has been saved to /conversation_history/sess-1.md should you need to refer back to it for details.\n\n" +
            "A condensed summary follows:\n\n<summary>\nSUMMARY-ONE: the parser was refactored.\n</summary>",
        },
      ],
    });
    expect(result.historyPath).toBe("/conversation_history/sess-1.md");
    expect(result.summary).toBe("SUMMARY-ONE: the parser was refactored.");

    // The full older part is in the history file, through the composite route.
    const file = await readText(backend, "/conversation_history/sess-1.md");
    expect(file).toBe(await readText(history, "/sess-1.md"));
    expect(file!.startsWith("## Summarized at 2026-03-04T05:06:07.000Z\n\n### User\n\nOLD-U1 please refactor")).toBe(
      true,
    );
    expect(file).toContain(filler("parser", 600));
    expect(file).not.toContain("KEPT-");

    expect(events).toEqual([
      { type: "compaction", compactionId: "cmp-1", status: "in_progress" },
      {
        type: "compaction",
        compactionId: "cmp-1",
        status: "completed",
        summary: "SUMMARY-ONE: the parser was refactored.",
      },
    ]);
  });

  it("a second compaction folds in the first summary and appends to the history file", async () => {
    server.enqueue(textTurn("SUMMARY-ONE"), textTurn("SUMMARY-TWO"));
    const { compactor, backend } = compactorFor();
    const first = await compactor.compact(conversation(), "manual", new AbortController().signal);
    if (first.kind !== "compacted") throw new Error(first.kind);
    const later = [
      ...first.messages,
      user("NEW-U3 and a changelog"),
      assistant("NEW-A6 done"),
      user("NEW-U4 thanks"),
      assistant("NEW-A7 welcome"),
    ];
    const second = await compactor.compact(later, "manual", new AbortController().signal);
    if (second.kind !== "compacted") throw new Error(second.kind);

    const sent = server.requests[1]!.messages[0]!.text;
    expect(sent).toContain("### Summary of the earlier conversation\n\nSUMMARY-ONE");
    expect(sent).toContain("KEPT-A3");
    expect(second.messages[0]!.content[0]).toMatchObject({
      text: expect.stringContaining("<summary>\nSUMMARY-TWO\n</summary>"),
    });
    expect(pairingProblems(second.messages)).toEqual([]);

    const file = (await readText(backend, "/conversation_history/sess-1.md"))!;
    expect(file.match(/^## Summarized at /gm)).toHaveLength(2);
    expect(file.indexOf("OLD-U1")).toBeLessThan(file.indexOf("## Summarized at", 10));
    expect(file.indexOf("KEPT-A3")).toBeGreaterThan(file.indexOf("## Summarized at", 10));
    // The earlier summary is not copied into the file: the messages it stands for are already there.
    expect(file).not.toContain("SUMMARY-ONE");
  });

  it("a PreCompact hook can block it: no model call, no events, no file", async () => {
    const calls: Array<{ trigger: string; instructions?: string }> = [];
    const { compactor, events, backend } = compactorFor({
      preCompact: async (trigger, _signal, instructions) => {
        calls.push({ trigger, instructions });
        return { blocked: true, reason: "not during the release" };
      },
    });
    const result = await compactor.compact(conversation(), "manual", new AbortController().signal, {
      instructions: "keep the API notes",
    });
    expect(result).toEqual({ kind: "blocked", reason: "not during the release" });
    expect(calls).toEqual([{ trigger: "manual", instructions: "keep the API notes" }]);
    expect(server.requests).toHaveLength(0);
    expect(events).toEqual([]);
    expect(await readText(backend, "/conversation_history/sess-1.md")).toBeUndefined();
  });

  it("a failed summary request changes nothing and tells the user", async () => {
    server.enqueue({ parts: [], httpError: { status: 400 } });
    const { compactor, events, backend } = compactorFor();
    const result = await compactor.compact(conversation(), "manual", new AbortController().signal);
    expect(result.kind).toBe("failed");
    expect(events.map((e) => e.type === "compaction" && e.status)).toEqual(["in_progress", "failed"]);
    const failed = events[1] as { error: string };
    expect(failed.error).toMatch(/^The summary request failed: .*400/);
    expect(await readText(backend, "/conversation_history/sess-1.md")).toBeUndefined();
  });

  it("fails without compacting when the history file cannot be written", async () => {
    server.enqueue(textTurn("SUMMARY"));
    const backend = createStateBackend();
    await backend.write("/conversation_history", "a file, not a directory");
    const { events, emit } = collectEvents();
    const compactor = createCompactor({
      model: fakeAnthropic(server, 1000),
      backend,
      sessionId: "s",
      emit,
      newId: () => "x",
    });
    const result = await compactor.compact(conversation(), "manual", new AbortController().signal);
    expect(result).toMatchObject({
      kind: "failed",
      error: expect.stringContaining("Could not save the conversation history to /conversation_history/s.md"),
    });
    expect(events.at(-1)).toMatchObject({ type: "compaction", status: "failed" });
  });

  it("skips a conversation too short to summarize", async () => {
    const { compactor, events } = compactorFor();
    const result = await compactor.compact([user("hi"), assistant("hello")], "manual", new AbortController().signal);
    expect(result).toEqual({
      kind: "skipped",
      reason: "Nothing to compact yet: the conversation has 2 messages and the last 6 are always kept.",
    });
    expect(server.requests).toHaveLength(0);
    expect(events).toEqual([]);
  });

  it("passes /compact instructions to the summarizer", async () => {
    server.enqueue(textTurn("S"));
    const { compactor } = compactorFor();
    await compactor.compact(conversation(), "manual", new AbortController().signal, {
      instructions: "Focus on the parser API.",
    });
    expect(server.requests[0]!.messages[0]!.text).toContain(
      "<instructions>\nFocus on the parser API.\n</instructions>",
    );
  });

  it("summarizes in chunks, carrying the summary so far, when the transcript exceeds one request", async () => {
    server.setHandler((request) => textTurn(`PART-SUMMARY-${server.requests.indexOf(request) + 1}`));
    const { compactor } = compactorFor({ summaryInputTokens: 400 }); // 1,600 chars, chunks of 1,200
    const result = await compactor.compact(conversation(), "manual", new AbortController().signal);
    if (result.kind !== "compacted") throw new Error(result.kind);
    expect(server.requests.length).toBeGreaterThan(1);
    for (const request of server.requests) expect(request.messages[0]!.text.length).toBeLessThan(2200);
    const texts = server.requests.map((r) => r.messages[0]!.text);
    expect(texts[0]).toContain("OLD-U1");
    expect(texts.at(-1)).toContain("OLD-R2");
    expect(texts[1]).toContain("<previous_summary>\nPART-SUMMARY-1\n</previous_summary>");
    expect(result.summary).toBe(`PART-SUMMARY-${server.requests.length}`);
  });

  it("a cancelled compaction emits nothing after the cancel and changes nothing", async () => {
    server.enqueue({ parts: [{ type: "text", text: "partial" }], hangAfterParts: true });
    const { compactor, events, backend } = compactorFor();
    const abort = new AbortController();
    const pending = compactor.compact(conversation(), "auto", abort.signal);
    await server.waitForRequests(1);
    abort.abort();
    expect(await pending).toEqual({ kind: "cancelled" });
    expect(events).toEqual([{ type: "compaction", compactionId: "cmp-1", status: "in_progress" }]);
    expect(await readText(backend, "/conversation_history/sess-1.md")).toBeUndefined();
  });
});

describe("prepareMessages", () => {
  it("returns the same list while under the trigger", async () => {
    const { compactor } = compactorFor();
    const messages = [user("short"), assistant("reply")];
    expect(compactor.needsCompaction(messages)).toBe(false);
    expect(await compactor.prepareMessages(messages, new AbortController().signal)).toBe(messages);
    expect(server.requests).toHaveLength(0);
  });

  it("counts the fixed request overhead toward the trigger", async () => {
    const { compactor } = compactorFor({ baseTokens: () => 900 });
    expect(compactor.needsCompaction([user("short")])).toBe(true);
  });

  it("compacts over the trigger, then gives the same view for the full list without asking again", async () => {
    server.enqueue(textTurn("AUTO-SUMMARY"));
    const { compactor, events } = compactorFor();
    const messages = conversation();
    expect(compactor.needsCompaction(messages)).toBe(true);
    const compacted = await compactor.prepareMessages(messages, new AbortController().signal);
    expect(compacted[0]!.content[0]).toMatchObject({ text: expect.stringContaining("AUTO-SUMMARY") });
    expect(compacted.slice(1)).toEqual(messages.slice(5));

    // A caller that kept the full list (plus a new message) gets the compacted view again.
    const next = [...messages, assistant("KEPT-A6 more")];
    const again = await compactor.prepareMessages(next, new AbortController().signal);
    expect(again[0]).toBe(compacted[0]);
    expect(again.slice(1)).toEqual(next.slice(5));
    expect(server.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === "compaction" && e.status === "completed")).toHaveLength(1);
  });

  it("on failure returns the original list and does not retry on every request", async () => {
    server.setHandler(() => ({ parts: [], httpError: { status: 400 } }));
    const { compactor, events } = compactorFor();
    const messages = conversation();
    expect(await compactor.prepareMessages(messages, new AbortController().signal)).toBe(messages);
    const grown = [...messages, assistant("x")];
    expect(await compactor.prepareMessages(grown, new AbortController().signal)).toBe(grown);
    expect(server.requests).toHaveLength(1);
    expect(events.filter((e) => e.type === "compaction" && e.status === "failed")).toHaveLength(1);
    // Enough new messages later it tries again.
    const later = [...grown, user("a"), assistant("b"), user("c")];
    await compactor.prepareMessages(later, new AbortController().signal);
    expect(server.requests).toHaveLength(2);
  });

  it("a blocked automatic compaction proceeds with the full list and shows the reason", async () => {
    const triggers: string[] = [];
    const { compactor, events } = compactorFor({
      preCompact: async (trigger) => (triggers.push(trigger), { blocked: true, reason: "hook says no" }),
    });
    const messages = conversation();
    expect(await compactor.prepareMessages(messages, new AbortController().signal)).toBe(messages);
    expect(triggers).toEqual(["auto"]);
    expect(events).toEqual([
      { type: "notice", severity: "info", title: "Automatic compaction was blocked: hook says no" },
    ]);
    expect(server.requests).toHaveLength(0);
  });
});
