import type { Message } from "../model/types.js";
import type { AssembledTurn } from "./assembly.js";
import { estimateTokens, IMAGE_TOKENS } from "./compaction/messages.js";

// /context: what fills the model's context window, estimated at 4 characters per token and a flat
// cost per image (the estimate compaction uses), next to the last size the model itself reported.

export type ContextReportInput = {
  turn: AssembledTurn;
  history: readonly Message[];
  contextWindow: number;
  /** Tokens the model reported for the last request, when there was one. */
  lastReported?: number;
};

const tokens = (chars: number) => Math.ceil(chars / 4);

export function renderContextReport({ turn, history, contextWindow, lastReported }: ContextReportInput): string {
  const { parts } = turn;
  const schema = (names: (name: string) => boolean) =>
    JSON.stringify(
      turn.tools
        .filter((t) => names(t.name))
        .map((t) => ({ name: t.name, description: t.description, input_schema: t.jsonSchema })),
    ).length;
  const sectionChars = parts.memory.length + parts.skills.length + parts.interpreter.length + parts.mcp.length;
  const mcpCount = turn.tools.filter((t) => parts.mcpToolNames.has(t.name)).length;
  // Tokens per row.
  const rows: Array<[string, number]> = [
    ["System prompt", tokens(Math.max(0, turn.system.length - sectionChars))],
    ["Memory (AGENTS.md)", tokens(parts.memory.length)],
    ["Skills", tokens(parts.skills.length)],
    ["eval instructions", tokens(parts.interpreter.length)],
    ["MCP server instructions", tokens(parts.mcp.length)],
    [
      `Built-in tool schemas (${turn.tools.length - mcpCount} tools)`,
      tokens(schema((n) => !parts.mcpToolNames.has(n))),
    ],
    [`MCP tool schemas (${mcpCount} tools)`, tokens(schema((n) => parts.mcpToolNames.has(n)))],
    [`Conversation (${history.length} messages)`, estimateTokens(history)],
  ];
  const total = rows.reduce((sum, [, count]) => sum + count, 0);
  const percent = (n: number) => `${((n / contextWindow) * 100).toFixed(1)}%`;
  const lines = rows.map(([label, count]) => `| ${label} | ${count.toLocaleString("en-US")} | ${percent(count)} |`);
  return [
    `**Context window** (≈ tokens, estimated at 4 characters per token, images at a flat ${IMAGE_TOKENS.toLocaleString("en-US")}; window ${contextWindow.toLocaleString("en-US")})`,
    "",
    "| part | tokens | of window |",
    "| --- | ---: | ---: |",
    ...lines,
    `| **Total** | **${total.toLocaleString("en-US")}** | **${percent(total)}** |`,
    "",
    lastReported !== undefined
      ? `The model reported ${lastReported.toLocaleString("en-US")} tokens for the last request.`
      : "No request has been sent yet.",
  ].join("\n");
}
