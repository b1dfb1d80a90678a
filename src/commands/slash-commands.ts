import type { Session, SessionEventSink } from "../session/index.js";
import type { PromptBlock } from "../tools/types.js";

export type CommandResult =
  { kind: "reply"; text: string; stopReason?: "end_turn" | "cancelled" } | { kind: "prompt"; blocks: PromptBlock[] };

/** What a command can use besides the session: a sink for progress events, and a commands refresh. */
export type CommandContext = { events: SessionEventSink; refreshCommands: () => Promise<void> };

/** `/skill:<name> [args]`: the skill's instructions and the request, sent as the prompt. */
export async function skillPrompt(session: Session, name: string, args: string): Promise<CommandResult> {
  const invocation = await session.extensions.skillInvocation(name, args);
  if (!invocation.ok) return { kind: "reply", text: invocation.error };
  return { kind: "prompt", blocks: [{ type: "text", text: invocation.text }] };
}

export type SlashCommand = {
  name: string;
  description: string;
  hint?: string;
  run(session: Session, args: string, context: CommandContext): Promise<CommandResult>;
};

export type ParsedCommand = { name: string; args: string };

/** A prompt is a command when its first text starts with `/name`; the rest of the text is the input. */
export function parseSlashCommand(blocks: readonly PromptBlock[]): ParsedCommand | undefined {
  const first = blocks[0];
  if (!first || first.type !== "text") return undefined;
  const match = /^\/([A-Za-z][\w:@.-]*)(?:\s+([\s\S]*))?$/.exec(first.text.trim());
  if (!match) return undefined;
  return { name: match[1]!, args: (match[2] ?? "").trim() };
}

export function coreCommands(list: () => readonly SlashCommand[]): SlashCommand[] {
  return [
    {
      name: "help",
      description: "List the available commands",
      async run() {
        const lines = list().map((c) => `- \`/${c.name}${c.hint ? ` <${c.hint}>` : ""}\` — ${c.description}`);
        return { kind: "reply", text: `**Commands**\n\n${lines.join("\n")}` };
      },
    },
    {
      name: "status",
      description: "Show the session's model, mode, directories and context use",
      async run(session) {
        const workspace = await session.workspaceStatus();
        const lines = [
          `- Session: \`${session.id}\``,
          `- Working directory: \`${session.cwd}\``,
          ...(session.additionalDirectories.length
            ? [`- Additional directories: ${session.additionalDirectories.map((d) => `\`${d}\``).join(", ")}`]
            : []),
          `- Project root: \`${session.projectRoot}\``,
          ...(workspace ? [`- ${workspace.label}: ${workspace.text}`] : []),
          `- Model: \`${session.modelSpec}\``,
          `- Mode: \`${session.mode}\``,
          `- Messages in context: ${session.history.length}`,
        ];
        return { kind: "reply", text: `**Status**\n\n${lines.join("\n")}` };
      },
    },
    {
      name: "changes",
      description: "List what this session changed in its container (copy mode) and has not applied to the project",
      async run(session) {
        return { kind: "reply", text: await session.workspaceChanges() };
      },
    },
    {
      name: "apply",
      description: "Write the container's changes to the project: one dialog for them, one per protected path",
      async run(session, _args, context) {
        const report = await session.applyWorkspaceChanges(context.events);
        return { kind: "reply", text: report.text, stopReason: report.stopReason };
      },
    },
    {
      name: "cost",
      description: "Show what this session has spent on model requests, and its spend limit",
      async run(session) {
        return { kind: "reply", text: await session.costReport() };
      },
    },
    {
      name: "context",
      description:
        "Show what fills the context window: system prompt, memory, skills, tool schemas, MCP tools, conversation",
      async run(session) {
        return { kind: "reply", text: await session.contextReport() };
      },
    },
    {
      name: "ps",
      description: "List the background processes of this session; `/ps stop ID` stops one",
      hint: "stop ID",
      async run(session, args) {
        const stop = /^stop\s+(\S+)$/.exec(args);
        if (stop) return { kind: "reply", text: await session.background.stopById(stop[1]!) };
        if (args) return { kind: "reply", text: "Usage: `/ps` to list, `/ps stop ID` to stop one." };
        return { kind: "reply", text: session.background.describe(new Date()) };
      },
    },
    {
      name: "agents",
      description:
        "List the other ACP agents (`[agents.NAME]`) with their health, and what of theirs bypasses the gate",
      async run(session) {
        const text = await session.background.peers?.describe();
        return { kind: "reply", text: text ?? "Other ACP agents cannot run in this session." };
      },
    },
    {
      name: "reload",
      description: "Re-read skills, memory, subagents, plugins, hooks, MCP config and config.toml",
      async run(session, _args, context) {
        const summary = await session.reload();
        await context.refreshCommands();
        return { kind: "reply", text: summary };
      },
    },
    {
      name: "remember",
      description: "Save what was learned in this conversation to memory (runs the remember skill)",
      hint: "what to remember (optional)",
      async run(session, args) {
        return skillPrompt(session, "remember", args);
      },
    },
    {
      name: "skills",
      description: "List the available skills",
      async run(session) {
        const skills = await session.extensions.skillList();
        if (skills.length === 0) return { kind: "reply", text: "No skills are loaded." };
        const lines = skills.map((s) => `- \`/skill:${s.name}\` — ${s.description} _(${s.source})_`);
        return { kind: "reply", text: `**Skills**\n\n${lines.join("\n")}` };
      },
    },
    {
      name: "mcp",
      description: "Show MCP servers, their status, tools and problems",
      async run(session) {
        return { kind: "reply", text: await session.extensions.describeMcp() };
      },
    },
    {
      name: "hooks",
      description: "Show the loaded hooks by event, with their source and last problems",
      async run(session) {
        return { kind: "reply", text: await session.extensions.describeHooks() };
      },
    },
    {
      name: "compact",
      description: "Summarize the older part of the conversation to free context",
      hint: "what to keep (optional)",
      async run(session, args, context) {
        const result = await session.compact(args, context.events);
        return {
          kind: "reply",
          text: "message" in result && result.message ? result.message : "",
          stopReason: result.stopReason === "cancelled" ? "cancelled" : "end_turn",
        };
      },
    },
    {
      name: "clear",
      description: "Start over: forget the conversation so far",
      async run(session) {
        await session.clear();
        return { kind: "reply", text: "Conversation cleared. The next message starts a fresh context." };
      },
    },
    {
      name: "permissions",
      description:
        "List remembered choices (tool calls, MCP servers, hooks, skill links, dev containers); `/permissions revoke N` forgets one",
      hint: "revoke N",
      async run(session, args) {
        // Loaded by now: the session exists (a static import would load the session layer at startup).
        const { rememberedOf } = await import("../session/index.js");
        const remembered = rememberedOf(session);
        const entries = await remembered.list();
        const revoke = /^(?:revoke|forget)\s+(\S+)$/.exec(args);
        if (revoke) {
          // By its number in the list, or by its key (the same `<kind>:<id>` shape for every kind).
          const entry = /^\d+$/.test(revoke[1]!)
            ? entries[Number(revoke[1]) - 1]
            : entries.find((e) => e.key === revoke[1]);
          const forgotten = entry && (await remembered.revoke(entry.key));
          if (!forgotten)
            return {
              kind: "reply",
              text: `There is no remembered choice ${/^\d+$/.test(revoke[1]!) ? "number " : ""}${revoke[1]}. Run /permissions to see the list.`,
            };
          return {
            kind: "reply",
            text: `Forgot: ${forgotten.decision === "allow" ? "allowed" : "rejected"} — ${forgotten.label}. deep-acp will ask again.`,
          };
        }
        if (args)
          return { kind: "reply", text: "Usage: `/permissions` to list, `/permissions revoke N` to forget choice N." };
        if (entries.length === 0)
          return { kind: "reply", text: `No remembered permission choices for ${session.projectRoot}.` };
        const lines = entries.map(
          (e, i) =>
            `${i + 1}. ${e.decision === "allow" ? "Allowed" : "Rejected"}: ${e.label}${e.scope === "everywhere" ? " (every project)" : ""} — \`${e.key}\``,
        );
        return {
          kind: "reply",
          text: `**Remembered choices for \`${session.projectRoot}\`**\n\n${lines.join("\n")}\n\nForget one with \`/permissions revoke N\` (or its key).`,
        };
      },
    },
  ];
}
