import type { SubagentDefinition } from "./types.js";

/** Description of the `task` tool: the available subagents and how to use them. */
export function taskToolDescription(subagents: readonly SubagentDefinition[]): string {
  const list = subagents.map((agent) => `- ${agent.name}: ${agent.description}`).join("\n");
  return `Launch a subagent to handle a complex, multi-step task in its own, isolated context window.

Available subagent types:
${list}

Set subagent_type to one of the names above and put the whole task in description.

Usage notes:
- When several tasks are independent, launch several subagents in parallel: make multiple task calls in a single message.
- Each subagent is stateless: it sees only the description you give it, not this conversation, and it cannot ask follow-up questions. Include every detail it needs and say exactly what its final report must contain.
- The subagent's report is returned to you, not shown to the user. Summarise the relevant part for the user yourself.
- Say whether the subagent should change files or only research and report, since it cannot infer the user's intent.
- Trust but verify: a report describes what the subagent believes it did; check critical claims before relying on them.
- Use a subagent when a search may need many attempts or would flood this conversation with output; for a single known file or a quick lookup, use the tools directly.`;
}

/** Description for the `subagent_type` argument. */
export function subagentTypeDescription(subagents: readonly SubagentDefinition[]): string {
  return `Name of the subagent to use. Available: ${subagents.map((agent) => agent.name).join(", ")}`;
}

/** The error text for an unknown `subagent_type`. */
export function unknownSubagentMessage(requested: string, subagents: readonly SubagentDefinition[]): string {
  return `invoked agent of type ${requested}, the only allowed types are ${subagents.map((agent) => `\`${agent.name}\``).join(", ")}`;
}
