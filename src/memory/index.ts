export {
  loadMemory,
  type LoadMemoryOptions,
  type MemoryLoad,
  type MemoryLocations,
  type MemoryScope,
  type MemorySource,
} from "./load.js";
export { memoryPromptSection } from "./prompt.js";
