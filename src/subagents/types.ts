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
  /** The AGENTS.md it was read from (file-defined subagents only). */
  path?: string;
};
