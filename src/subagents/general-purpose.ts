import type { SubagentDefinition } from "./types.js";

/** Always available unless a file-defined subagent named `general-purpose` replaces it. */
export const GENERAL_PURPOSE_SUBAGENT: SubagentDefinition = {
  name: "general-purpose",
  description:
    "General-purpose agent for researching complex questions, searching for files and content, and carrying out " +
    "multi-step tasks in its own context window. Use it when a search may take several attempts, or to keep " +
    "bulky intermediate output out of the main conversation. It has the same tools as the main agent.",
  systemPrompt:
    "You are a subagent working on one delegated task for a coding agent. You have the same tools as the main " +
    "agent. Work autonomously: you cannot ask the user questions, and only your final message is returned to " +
    "the agent that called you. Finish the task, then reply with a concise, complete report: what you did, what " +
    "you found (with file paths and line numbers where relevant), and anything left uncertain or undone.",
  source: "builtin",
};
