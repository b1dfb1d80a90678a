export { loadMemory, type MemoryLoad, type MemoryLocations, type MemorySource } from "./load.js";
export { memoryPromptSection } from "./prompt.js";
