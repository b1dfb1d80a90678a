import type { Session } from "../session/index.js";
import type { PromptBlock } from "../tools/types.js";
import {
  coreCommands,
  parseSlashCommand,
  skillPrompt,
  type CommandContext,
  type CommandResult,
  type SlashCommand,
} from "./slash-commands.js";

/** What a prompt comes to: a command's own answer, or the blocks a model turn is run on. */
export type DispatchedPrompt =
  | { kind: "reply"; text: string; stopReason: "end_turn" | "cancelled" }
  | {
      kind: "turn";
      blocks: PromptBlock[];
      /** The prompt was not a slash command (known or not): only such a prompt may join a running turn. */
      plain: boolean;
    };

/** The slash commands of a connection or a `-n` run; `/help` lists this same table. */
export function createCommandTable(): SlashCommand[] {
  const table: SlashCommand[] = coreCommands(() => table);
  return table;
}

/**
 * The one dispatch of a prompt, for the ACP server and for `-n`: a known `/command` runs here and
 * answers itself or becomes a prompt (`/remember`, `/skill:<name>`); anything else goes to the model
 * as it is. An unknown `/word` is the user's text.
 */
export async function dispatchPrompt(
  session: Session,
  blocks: PromptBlock[],
  commands: readonly SlashCommand[],
  context: CommandContext,
): Promise<DispatchedPrompt> {
  const parsed = parseSlashCommand(blocks);
  if (!parsed) return { kind: "turn", blocks, plain: true };
  const command = commands.find((c) => c.name === parsed.name);
  let result: CommandResult | undefined;
  if (parsed.name.startsWith("skill:"))
    result = await skillPrompt(session, parsed.name.slice("skill:".length), parsed.args);
  else if (command) result = await command.run(session, parsed.args, context);
  if (!result) return { kind: "turn", blocks, plain: false };
  if (result.kind === "reply") return { kind: "reply", text: result.text, stopReason: result.stopReason ?? "end_turn" };
  // Text after the command's own line (attachments, mentions) still goes to the model.
  return { kind: "turn", blocks: [...result.blocks, ...blocks.slice(1)], plain: false };
}
