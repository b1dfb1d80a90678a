/** A subagent the `task` tool can launch. */
export type SubagentDefinition = {
  /** The `subagent_type` value. */
  name: string;
  /** Shown to the main agent to decide when to delegate. */
  description: string;
  systemPrompt: string;
  /** `provider:model`; absent means the parent's model. */
  model?: string;
  source: "builtin" | "user" | "project";
  /**
   * Another ACP agent from the user's `[agents.NAME]` that runs this subagent's task (src/peers/):
   * its own model and tools, deep-acp as its editor. `systemPrompt` then goes first in its prompt.
   */
  agent?: string;
  /** The AGENTS.md it was read from (file-defined subagents only). */
  path?: string;
};
