import { describe, expect, it } from "vitest";
import type { Message } from "../../../src/model/types.js";
import type { AssembledTurn } from "../../../src/turn/assembly.js";
import { renderContextReport } from "../../../src/turn/context-report.js";

// /context counts the conversation as compaction does: an image at its flat cost, not its base64 text.

const turn = {
  system: "",
  tools: [],
  parts: { memory: "", skills: "", interpreter: "", mcp: "", mcpToolNames: new Set<string>() },
} as unknown as AssembledTurn;

describe("/context", () => {
  it("counts a pasted screenshot at the image's flat cost, not its encoded size", () => {
    const screenshot = "A".repeat(400_000); // ~300 KB of PNG as base64
    const history: Message[] = [
      {
        role: "user",
        content: [
          { type: "text", text: "what is wrong here?" },
          { type: "image", mimeType: "image/png", data: screenshot },
        ],
      },
    ];
    const report = renderContextReport({ turn, history, contextWindow: 200_000 });
    // 19 characters of text -> 5 tokens, plus 1,600 for the image.
    expect(report).toContain("| Conversation (1 messages) | 1,605 | 0.8% |");
    // The two empty tool-schema rows are "[]" each: 1 token apiece.
    expect(report).toContain("| **Total** | **1,607** |");
  });
});
