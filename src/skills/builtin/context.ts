/** Concrete paths written into built-in skill text; defaults are the documented `~` forms. */
export type BuiltinSkillContext = {
  /** Default "~/.deepagents/agent/AGENTS.md". */
  userMemoryFile?: string;
  /** Default "~/.deepagents/agent/skills". */
  userSkillsDir?: string;
  /** Default "~/.agents/skills". */
  sharedUserSkillsDir?: string;
  /** Where long-term notes live, as the model addresses them. Default "/memories/". */
  memoriesPath?: string;
};

export type ResolvedBuiltinSkillContext = Required<BuiltinSkillContext>;

export function resolveBuiltinContext(context: BuiltinSkillContext = {}): ResolvedBuiltinSkillContext {
  return {
    userMemoryFile: context.userMemoryFile ?? "~/.deepagents/agent/AGENTS.md",
    userSkillsDir: context.userSkillsDir ?? "~/.deepagents/agent/skills",
    sharedUserSkillsDir: context.sharedUserSkillsDir ?? "~/.agents/skills",
    memoriesPath: context.memoriesPath ?? "/memories/",
  };
}
