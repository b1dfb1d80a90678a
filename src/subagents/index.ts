export type { SubagentDefinition } from "./types.js";
export { GENERAL_PURPOSE_SUBAGENT } from "./general-purpose.js";
export { loadSubagents } from "./load.js";
export { taskToolDescription, subagentTypeDescription, unknownSubagentMessage } from "./task-description.js";
