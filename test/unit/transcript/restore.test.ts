import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/model/types.js";
import { restoreSession, type SessionRecord } from "../../../src/transcript/index.js";

const prompt = (text: string): Message => ({ role: "user", content: [{ type: "text", text }] });
const call = (id: string): Message => ({
  role: "assistant",
  content: [{ type: "tool_call", id, name: "ls", input: {} }],
});
const result = (id: string): Message => ({
  role: "tool",
  toolCallId: id,
  toolName: "ls",
  content: [{ type: "text", text: "a.txt" }],
  isError: false,
});
const user = (id: string, text: string): SessionRecord => ({
  t: "user",
  id,
  blocks: [{ type: "text", text }],
  message: prompt(text) as never,
});
const tool = (id: string): SessionRecord => ({
  t: "tool",
  call: { id, name: "ls", title: "List", kind: "read", locations: [], rawInput: {} },
});

describe("transcript restore", () => {
  const cases: Array<{
    name: string;
    records: SessionRecord[];
    history: Message[];
    check?: (r: ReturnType<typeof restoreSession>) => void;
  }> = [
    { name: "nothing", records: [], history: [] },
    {
      name: "a prompt and its answer",
      records: [
        user("u1", "hi"),
        { t: "text", mid: "m1", text: "hel" },
        { t: "text", mid: "m1", text: "lo" },
        { t: "msg", mid: "m1", message: { role: "assistant", content: [{ type: "text", text: "hello" }] } },
      ],
      history: [prompt("hi"), { role: "assistant", content: [{ type: "text", text: "hello" }] }],
      check: (r) => {
        expect(r.userMessageIds).toEqual(["u1"]);
        expect(r.replay.map((i) => i.type)).toEqual(["user", "message_chunk", "message_chunk"]);
      },
    },
    {
      name: "text streamed before a crash joins the history",
      records: [user("u1", "hi"), { t: "text", mid: "m1", text: "half an ans" }],
      history: [prompt("hi"), { role: "assistant", content: [{ type: "text", text: "half an ans" }] }],
    },
    {
      name: "a call that never finished is answered for the model and failed for the editor",
      records: [user("u1", "list"), tool("c1"), { t: "msg", message: call("c1") }],
      history: [
        prompt("list"),
        call("c1"),
        {
          role: "tool",
          toolCallId: "c1",
          toolName: "ls",
          content: [{ type: "text", text: "Interrupted: deep-acp stopped before this call finished." }],
          isError: true,
        },
      ],
      check: (r) =>
        expect(r.replay.at(-1)).toMatchObject({ type: "tool_call_update", toolCallId: "c1", status: "failed" }),
    },
    {
      name: "a finished call keeps its result",
      records: [
        user("u1", "list"),
        tool("c1"),
        { t: "msg", message: call("c1") },
        { t: "tool_done", id: "c1", status: "completed", content: [] },
        { t: "msg", message: result("c1") },
      ],
      history: [prompt("list"), call("c1"), result("c1")],
      check: (r) => expect(r.replay.filter((i) => i.type === "tool_call_update")).toHaveLength(1),
    },
    {
      name: "a compaction replaces the history but not the replay",
      records: [
        user("u1", "one"),
        { t: "compacted", history: [prompt("summary")], summary: "summary" },
        user("u2", "two"),
      ],
      history: [prompt("summary"), prompt("two")],
      check: (r) => expect(r.replay.filter((i) => i.type === "user")).toHaveLength(2),
    },
    {
      name: "settings: the last mode, model and thought level win",
      records: [
        { t: "mode", mode: "plan" },
        { t: "model", model: "a:b" },
        { t: "mode", mode: "bypass" },
        { t: "thought_level", level: "high" },
        { t: "turn_end", stopReason: "end_turn" },
      ],
      history: [],
      check: (r) => expect([r.mode, r.model, r.thoughtLevel]).toEqual(["bypass", "a:b", "high"]),
    },
    {
      name: "the last plan and usage, and what the requests cost",
      records: [
        { t: "plan", entries: [{ content: "x", status: "pending", priority: "medium" }] },
        { t: "usage", used: 10, size: 100, in: 8, out: 2, cost: 0.5 },
        { t: "usage", used: 20, size: 100, in: 15, out: 5 },
      ],
      history: [],
      check: (r) => {
        expect(r.plan).toHaveLength(1);
        expect(r.usage).toEqual({ used: 20, size: 100 });
        expect(r.spend).toEqual({ usd: 0.5, unpriced: 1, requests: 2, inputTokens: 23, outputTokens: 7 });
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const restored = restoreSession(c.records);
      expect(restored.history).toEqual(c.history);
      c.check?.(restored);
    });
  }
});
