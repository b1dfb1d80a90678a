import type { Message } from "../model/types.js";
import type { AssembledTurn } from "./assembly.js";

// /context: what fills the model's context window, estimated at 4 characters per token (the same
// estimate compaction uses), next to the last size the model itself reported.

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
  const rows: Array<[string, number]> = [
    ["System prompt", Math.max(0, turn.system.length - sectionChars)],
    ["Memory (AGENTS.md)", parts.memory.length],
    ["Skills", parts.skills.length],
    ["eval instructions", parts.interpreter.length],
    ["MCP server instructions", parts.mcp.length],
    [`Built-in tool schemas (${turn.tools.length - mcpCount} tools)`, schema((n) => !parts.mcpToolNames.has(n))],
    [`MCP tool schemas (${mcpCount} tools)`, schema((n) => parts.mcpToolNames.has(n))],
    [`Conversation (${history.length} messages)`, JSON.stringify(history).length],
  ];
  const total = rows.reduce((sum, [, chars]) => sum + tokens(chars), 0);
  const percent = (n: number) => `${((n / contextWindow) * 100).toFixed(1)}%`;
  const lines = rows.map(
    ([label, chars]) => `| ${label} | ${tokens(chars).toLocaleString("en-US")} | ${percent(tokens(chars))} |`,
  );
  return [
    `**Context window** (≈ tokens, estimated at 4 characters per token; window ${contextWindow.toLocaleString("en-US")})`,
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
