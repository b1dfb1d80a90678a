import type { SlashCommand } from "./slash-commands.js";

/** One entry of the list an editor shows (ACP's `available_commands_update`), free of the protocol. */
export type AvailableCommand = { name: string; description: string; hint?: string };

/**
 * The commands a session offers: the table, `/reload` saying what it would apply when a reload is
 * pending, and one `/skill:<name>` per loaded skill.
 */
export function availableCommands(
  commands: readonly SlashCommand[],
  skills: ReadonlyArray<{ name: string; description: string }>,
  pendingReload?: string,
): AvailableCommand[] {
  return [
    ...commands.map((c) => ({
      name: c.name,
      description:
        c.name === "reload" && pendingReload ? `Pending: ${pendingReload}. Run /reload to apply` : c.description,
      ...(c.hint ? { hint: c.hint } : {}),
    })),
    ...skills.map((s) => ({
      name: `skill:${s.name}`,
      description: s.description.slice(0, 200),
      hint: "request (optional)",
    })),
  ];
}
