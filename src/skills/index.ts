export type { PendingSymlink, Skill, SkillMetadata, SkillScope, SkillSource, SkillsLoad } from "./types.js";
export { parseFrontmatter, type FrontmatterResult } from "./frontmatter.js";
export { parseSkillFile, skillNameProblem, isStrictSkillName, MAX_SKILL_FILE_BYTES } from "./validate.js";
export { loadSkills, readSkillContent, type LoadSkillsOptions, type SkillContent } from "./load.js";
export { defaultSkillSources, type SkillSourcesOptions } from "./sources.js";
export { skillsPromptSection, skillInvocationPrompt, SKILL_READ_LINE_LIMIT } from "./prompt.js";
export {
  createSkillTrustStore,
  SkillTrustError,
  type SkillTrustStore,
  type SkillTrustStoreOptions,
  type SkillTrustEntry,
} from "./trust-store.js";
export {
  materializeBuiltinSkills,
  builtinSkillTexts,
  BUILTIN_SKILL_NAMES,
  type BuiltinSkillContext,
  type MaterializeResult,
} from "./builtin/index.js";
export { createSkillsCli, type SkillsCli, type SkillsCliOptions, type CliResult } from "./cli.js";
export { describePendingLink } from "./link-question.js";
