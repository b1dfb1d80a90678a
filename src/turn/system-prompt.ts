import type { AnyTool } from "../tools/types.js";
import type { SessionMode } from "../gate/decide/modes.js";

/**
 * Instructions the editor gives for a whole session (ACP `systemPrompt`): added after ours
 * (`append`), or in place of our default instructions (`override`). Either way the model is still
 * told where it works (cwd, roots, platform), which tools it has and the mode's rules: those are
 * facts and policy, not instructions an editor replaces.
 */
export type ClientSystemPrompt = { mode: "append" | "override"; text: string };

export type SystemPromptInput = {
  cwd: string;
  roots: readonly string[];
  /** e.g. "linux (x64)" */
  platform: string;
  /** ISO date (YYYY-MM-DD) */
  date: string;
  tools: readonly AnyTool[];
  mode: SessionMode;
  /** Extra sections (memory, skills, subagents, interpreter, MCP), already formatted. */
  sections?: readonly string[];
  /** Replaces the opening paragraph (a subagent's own system prompt). */
  intro?: string;
  client?: ClientSystemPrompt;
};

/** The base prompt is deliberately short: where the agent is, what it has, how to behave. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  const extraRoots = input.roots.filter((root) => root !== input.cwd);
  const override = input.client?.mode === "override" ? input.client.text : undefined;
  const lines = [
    override ??
      input.intro ??
      "You are deep-acp, a coding agent working inside the user's editor. You help with software engineering tasks by\n" +
        "reading, searching and changing files and running commands on the user's machine, then reporting clearly.",
    "",
    "# Environment",
    `- Working directory: ${input.cwd}`,
    ...(extraRoots.length ? [`- Additional project directories: ${extraRoots.join(", ")}`] : []),
    `- Platform: ${input.platform}`,
    `- Date: ${input.date}`,
    "- Paths are real absolute paths on this machine; relative paths resolve against the working directory.",
    "",
    "# Tools",
    input.tools.map((t) => `- ${t.name}`).join("\n"),
    ...(override === undefined ? WORKING_RULES : []),
    ...modeRules(input.mode),
  ];
  const appended = input.client?.mode === "append" ? [`# Instructions from the editor\n\n${input.client.text}`] : [];
  return [lines.join("\n"), ...(input.sections ?? []).filter((s) => s.trim() !== ""), ...appended].join("\n\n");
}

/** Our default instructions: an `override` system prompt replaces them (with the opening paragraph). */
const WORKING_RULES = [
  "",
  "# Working rules",
  "- Look before you change: read the relevant files and search the codebase before editing.",
  "- Make focused changes that match the surrounding style; do not reformat unrelated code.",
  "- Use edit_file for changes to existing files; write_file for new files or full rewrites.",
  "- Run the project's tests or build after changes when you can, and report what you ran.",
  "- Independent tool calls can be made in parallel in one message.",
  "- Some calls need the user's approval. If the user rejects a call, do not retry it unchanged; adapt or ask.",
  "- Be concise. Answer in the user's language. Refer to code as path:line.",
];

function modeRules(mode: SessionMode): string[] {
  if (mode !== "plan") return [];
  return [
    "",
    "# Plan mode",
    "The session is in plan mode: you can read and search but not change files or run commands.",
    "Investigate, then present a concrete step-by-step plan and wait for the user to switch modes.",
  ];
}
