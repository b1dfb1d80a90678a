// The commands room's public entry: slash commands, free of any protocol, for acp/ and `-n`.
export {
  coreCommands,
  parseSlashCommand,
  skillPrompt,
  type CommandContext,
  type CommandResult,
  type ParsedCommand,
  type SlashCommand,
} from "./slash-commands.js";
