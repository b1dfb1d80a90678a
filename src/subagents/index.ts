export type { SubagentDefinition } from "./types.js";
export { GENERAL_PURPOSE_SUBAGENT } from "./general-purpose.js";
export { loadSubagents, parseSubagent, type LoadSubagentsOptions } from "./load.js";
export { taskToolDescription, subagentTypeDescription, unknownSubagentMessage } from "./task-description.js";
