// The extensions room's public entry: loading skills, memory, subagents, plugins, hooks and MCP
// for a session, hosting them across turns, reloading them, asking trust questions through the session's door.
export { ExtensionHost } from "./host.js";
export { closeExtensions, loadExtensions, type Extensions } from "./load.js";
export type { ExtensionFlags, ExtensionServices } from "./services.js";
export type { TrustQuestion } from "../gate/seams/through-door.js";
export { builtinSkillsDir, loadSkillSet, prepareBuiltinSkills, sessionSkillSources } from "./skill-set.js";
