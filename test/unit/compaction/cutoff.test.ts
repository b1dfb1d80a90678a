import { describe, expect, it } from "vitest";
import {
  contextTrigger,
  estimateTokens,
  isSummaryMessage,
  selectCutoff,
  summaryMessage,
  truncateToolCallArgs,
} from "../../../src/turn/compaction/compactor.js";
import type { Message } from "../../../src/model/types.js";
import { assistant, pairingProblems, toolResult, user } from "./helpers.js";

describe("estimateTokens", () => {
  it("counts text, thinking and tool inputs at four characters a token", () => {
    const messages: Message[] = [
      user("a".repeat(400)),
      {
        role: "assistant",
        content: [
          { type: "thinking", text: "b".repeat(40) },
          { type: "tool_call", id: "c1", name: "grep", input: { pattern: "x".repeat(100) } },
        ],
      },
      toolResult("c1", "grep", "c".repeat(80)),
    ];
    const json = JSON.stringify({ pattern: "x".repeat(100) }).length;
    expect(estimateTokens(messages)).toBe(Math.ceil((400 + 40 + "grep".length + json + "grep".length + 80) / 4));
  });

  it("gives every image the same flat cost, whatever its size", () => {
    const small: Message = { role: "user", content: [{ type: "image", mimeType: "image/png", data: "AA==" }] };
    const large: Message = {
      role: "user",
      content: [{ type: "image", mimeType: "image/png", data: "A".repeat(100_000) }],
    };
    expect(estimateTokens([small])).toBe(1600);
    expect(estimateTokens([large])).toBe(1600);
  });
});

describe("contextTrigger", () => {
  it("is 85% of the window by default and 170,000 tokens when the window is unknown", () => {
    expect(contextTrigger(200_000)).toBe(170_000);
    expect(contextTrigger(1000)).toBe(850);
    expect(contextTrigger(1000, 0.5)).toBe(500);
    expect(contextTrigger(0)).toBe(170_000);
    expect(contextTrigger(undefined)).toBe(170_000);
  });
});

describe("selectCutoff", () => {
  it("keeps the last messages and summarizes the rest", () => {
    const messages = [
      user("1"),
      assistant("2"),
      user("3"),
      assistant("4"),
      user("5"),
      assistant("6"),
      user("7"),
      assistant("8"),
    ];
    expect(selectCutoff(messages, 6)).toBe(2);
    expect(selectCutoff(messages, 2)).toBe(6);
  });

  it("moves the cut before a tool call whose results it would separate from it", () => {
    const messages: Message[] = [
      user("start"),
      assistant("", { id: "c1", name: "read_file" }, { id: "c2", name: "grep" }),
      toolResult("c1", "read_file", "r1"),
      toolResult("c2", "grep", "r2"), // the naive cut (9 - 6 = 3) lands here
      assistant("", { id: "c3", name: "ls" }),
      toolResult("c3", "ls", "r3"),
      assistant("done"),
      user("next"),
      assistant("ok"),
    ];
    const cut = selectCutoff(messages, 6)!;
    expect(cut).toBe(1);
    expect(messages[cut]!.role).toBe("assistant");
    expect(pairingProblems(messages.slice(cut))).toEqual([]);
  });

  it("returns undefined when there is nothing worth summarizing", () => {
    expect(selectCutoff([user("a"), assistant("b")], 6)).toBeUndefined();
    // Everything before the kept part is one tool exchange that starts at the first message.
    const oneExchange: Message[] = [
      assistant("", { id: "c1", name: "ls" }),
      toolResult("c1", "ls", "x"),
      assistant("y"),
      user("z"),
    ];
    expect(selectCutoff(oneExchange, 3)).toBeUndefined();
    expect(selectCutoff(oneExchange, 2)).toBe(2);
    // Only an earlier summary would be summarized again.
    const afterSummary: Message[] = [summaryMessage("s", "/conversation_history/a.md"), user("1"), assistant("2")];
    expect(selectCutoff(afterSummary, 2)).toBeUndefined();
  });

  it("never leaves a tool result without its call on either side, for any conversation and keep count", () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let round = 0; round < 300; round++) {
      const messages: Message[] = [user("go")];
      let id = 0;
      const steps = 1 + Math.floor(random() * 12);
      for (let s = 0; s < steps; s++) {
        const calls = Math.floor(random() * 4);
        const ids = Array.from({ length: calls }, () => `c${id++}`);
        messages.push(assistant(calls ? "" : "text", ...ids.map((c) => ({ id: c, name: "grep" }))));
        for (const c of ids) messages.push(toolResult(c, "grep", "r"));
        if (random() < 0.3) messages.push(user("more"));
      }
      const keep = Math.floor(random() * 8);
      const cut = selectCutoff(messages, keep);
      if (cut === undefined) continue;
      expect(messages.length - cut).toBeGreaterThanOrEqual(keep);
      expect(pairingProblems(messages.slice(0, cut))).toEqual([]);
      expect(pairingProblems(messages.slice(cut))).toEqual([]);
    }
  });
});

describe("summaryMessage", () => {
  it("uses the reference wording and is recognised again later", () => {
    const message = summaryMessage("They fixed the parser.", "/conversation_history/s1.md");
    expect(message.content).toEqual([
      {
        type: "text",
        text:
          "You are in the middle of a conversation that has been summarized.\n\n" +
          "The full conversation history has been saved to /conversation_history/s1.md should you need to refer back to it for details.\n\n" +
          "A condensed summary follows:\n\n<summary>\nThey fixed the parser.\n</summary>",
      },
    ]);
    expect(isSummaryMessage(message)).toBe(true);
    expect(isSummaryMessage(user("hello"))).toBe(false);
  });
});

describe("truncateToolCallArgs", () => {
  it("cuts long string arguments of write_file and edit_file only", () => {
    const long = "x".repeat(2001);
    const messages: Message[] = [
      assistant(
        "",
        { id: "w", name: "write_file", input: { file_path: "/p/a.ts", content: long } },
        { id: "e", name: "execute", input: { command: long } },
      ),
      toolResult("w", "write_file", "ok"),
      assistant("", {
        id: "f",
        name: "edit_file",
        input: { file_path: "/p/a.ts", old_string: "a", new_string: "x".repeat(2000) },
      }),
    ];
    const out = truncateToolCallArgs(messages);
    const calls = out.flatMap((m) => (m.role === "assistant" ? m.content.filter((p) => p.type === "tool_call") : []));
    expect(calls[0]!.input).toEqual({ file_path: "/p/a.ts", content: "xxxxxxxxxxxxxxxxxxxx...(argument truncated)" });
    expect(calls[1]!.input).toEqual({ command: long });
    // Exactly 2000 characters is not over the limit: that message is returned untouched.
    expect(out[2]).toBe(messages[2]);
    expect(out[1]).toBe(messages[1]);
    // The caller's messages are not modified.
    expect((messages[0]!.content[0] as { input: { content: string } }).input.content).toBe(long);
  });
});
