import { describe, expect, it } from "vitest";
import { formatTranscript, summaryMessage } from "../../../src/turn/compaction/compactor.js";
import type { Message } from "../../../src/model/types.js";
import { assistant, toolResult, user } from "./helpers.js";

describe("formatTranscript", () => {
  it("renders roles, text, tool calls with JSON arguments and tool results", () => {
    const messages: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "Fix the build" },
          { type: "image", mimeType: "image/png", data: "AA==" },
        ],
      },
      assistant("Looking.", { id: "toolu_1", name: "grep", input: { pattern: "TODO" } }),
      toolResult("toolu_1", "grep", "src/a.ts:3: TODO"),
      assistant("", { id: "toolu_2", name: "execute", input: { command: "false" } }),
      toolResult("toolu_2", "execute", "exit 1", true),
    ];
    expect(formatTranscript(messages)).toBe(
      [
        "### User\n\nFix the build\n[image: image/png]",
        '### Assistant\n\nLooking.\n\nTool call `grep` (id toolu_1):\n```json\n{"pattern":"TODO"}\n```',
        "### Tool result `grep` (id toolu_1)\n\n```\nsrc/a.ts:3: TODO\n```",
        '### Assistant\n\nTool call `execute` (id toolu_2):\n```json\n{"command":"false"}\n```',
        "### Tool error `execute` (id toolu_2)\n\n```\nexit 1\n```",
      ].join("\n\n"),
    );
  });

  it("fences output containing backticks so it cannot close the block early", () => {
    const text = formatTranscript([toolResult("c", "read_file", "```js\ncode\n```")]);
    expect(text).toBe("### Tool result `read_file` (id c)\n\n````\n```js\ncode\n```\n````");
  });

  it("keeps the head and tail of over-long parts", () => {
    const long = "A".repeat(50) + "B".repeat(100) + "C".repeat(50);
    const text = formatTranscript([user(long)], { maxPartChars: 100 });
    expect(text).toBe(`### User\n\n${"A".repeat(50)}\n... [100 characters truncated] ...\n${"C".repeat(50)}`);
  });

  it("shows an earlier summary as such", () => {
    const text = formatTranscript([summaryMessage("Earlier: fixed the parser.", "/conversation_history/s.md")]);
    expect(text).toBe("### Summary of the earlier conversation\n\nEarlier: fixed the parser.");
  });
});
