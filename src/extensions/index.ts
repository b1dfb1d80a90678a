// The extensions room's public entry: loading skills, memory, subagents, plugins, hooks and MCP
// for a session, hosting them across turns, reloading them, and the queue of trust questions.
export { ExtensionHost } from "./host.js";
export { closeExtensions, loadExtensions, type Extensions } from "./load.js";
export type { ExtensionFlags, ExtensionServices } from "./services.js";
export { createTrustQueue, type TrustPrompter, type TrustQuestion, type TrustQueue } from "./trust-queue.js";
export { builtinSkillsDir, loadSkillSet, prepareBuiltinSkills, sessionSkillSources } from "./skill-set.js";
