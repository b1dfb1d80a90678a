// The commands room's public entry: slash commands, free of any protocol, for acp/ and `-n`.
export { availableCommands, type AvailableCommand } from "./available.js";
export { createCommandTable, dispatchPrompt } from "./dispatch.js";
export { parseSlashCommand, type CommandContext, type SlashCommand } from "./slash-commands.js";
