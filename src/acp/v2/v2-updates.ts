import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { gitPatch } from "./git-patch.js";

// The one place where a v1 session update becomes ACP v2 (the v2 agent serves v2 by running the v1
// agent and translating its traffic). What differs: every tool call is an upsert (`tool_call_update`),
// a diff names its changes and carries a git patch, the live command output v1 sends as Zed's
// `_meta.terminal_*` is v2's agent-owned terminal (`terminal_update`, `terminal_output_chunk`),
// commands are typed, and modes do not exist (the `mode` config option remains).

/** Terminals this session's client has been told about, and those that have exited. */
export type TerminalState = { announced: Set<string>; exited: Set<string> };

export function createTerminalState(): TerminalState {
  return { announced: new Set(), exited: new Set() };
}

type TerminalMeta = {
  terminal_info?: { terminal_id: string; cwd?: string };
  terminal_output?: { terminal_id: string; data: string };
  terminal_exit?: { terminal_id: string; exit_code: number | null; signal: string | null };
};

export function toV2Updates(update: v1.SessionUpdate, terminals: TerminalState): v2.SessionUpdate[] {
  switch (update.sessionUpdate) {
    case "tool_call":
    case "tool_call_update":
      return toolCall(update, terminals);
    case "available_commands_update":
      return [
        {
          sessionUpdate: "available_commands_update",
          availableCommands: update.availableCommands.map((c) => ({
            type: "command",
            name: c.name,
            description: c.description,
            ...(c.input && "hint" in c.input ? { input: { type: "text", hint: c.input.hint } } : {}),
          })),
        },
      ];
    case "config_option_update":
      return [{ sessionUpdate: "config_option_update", configOptions: toV2ConfigOptions(update.configOptions) }];
    case "current_mode_update":
    case "plan":
      return [];
    case "user_message_chunk":
    case "agent_message_chunk":
    case "agent_thought_chunk":
      // v2 requires the message id on every chunk; ours always have one.
      return [{ ...update, messageId: update.messageId ?? "message" } as v2.SessionUpdate];
    default:
      return [update as unknown as v2.SessionUpdate];
  }
}

function toolCall(
  update: Extract<v1.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }>,
  terminals: TerminalState,
): v2.SessionUpdate[] {
  const { sessionUpdate: _kind, _meta, content, ...fields } = update;
  const meta = { ...(_meta ?? {}) } as Record<string, unknown> & TerminalMeta;
  const { terminal_info: info, terminal_output: output, terminal_exit: exit } = meta;
  delete meta.terminal_info;
  delete meta.terminal_output;
  delete meta.terminal_exit;
  const before: v2.SessionUpdate[] = [];
  const after: v2.SessionUpdate[] = [];
  if (info && !terminals.announced.has(info.terminal_id)) {
    terminals.announced.add(info.terminal_id);
    before.push({
      sessionUpdate: "terminal_update",
      terminalId: info.terminal_id,
      ...(info.cwd ? { cwd: info.cwd } : {}),
    });
  }
  if (output && terminals.announced.has(output.terminal_id))
    before.push({
      sessionUpdate: "terminal_output_chunk",
      terminalId: output.terminal_id,
      data: Buffer.from(output.data).toString("base64"),
    });
  if (exit && terminals.announced.has(exit.terminal_id) && !terminals.exited.has(exit.terminal_id)) {
    terminals.exited.add(exit.terminal_id);
    after.push({
      sessionUpdate: "terminal_update",
      terminalId: exit.terminal_id,
      exitStatus: { exitCode: exit.exit_code, signal: exit.signal },
    });
  }
  const patch: Record<string, unknown> = { ...fields };
  if (content) patch.content = content.map(toolContent);
  if (Object.keys(meta).length > 0) patch._meta = meta;
  // An update that only carried terminal output (or nothing) says nothing more.
  const changes = Object.keys(patch).filter((key) => key !== "toolCallId" && key !== "_meta");
  const empty = changes.length === 0 && (output !== undefined || !("_meta" in patch));
  const call = empty ? [] : [{ sessionUpdate: "tool_call_update", ...patch } as v2.SessionUpdate];
  return [...before, ...call, ...after];
}

function toolContent(item: v1.ToolCallContent): v2.ToolCallContent {
  if (item.type !== "diff") return item as v2.ToolCallContent;
  const added = item.oldText === null || item.oldText === undefined;
  return {
    type: "diff",
    changes: [{ operation: added ? "add" : "modify", path: item.path }],
    patch: { format: "git_patch", text: gitPatch(item.path, item.oldText, item.newText) },
  } as v2.ToolCallContent;
}

/** v2 names an option's id `configId`. */
export function toV2ConfigOptions(
  options: readonly v1.SessionConfigOption[] | null | undefined,
): v2.SessionConfigOption[] {
  return (options ?? []).map(({ id, ...rest }) => ({ configId: id, ...rest }) as unknown as v2.SessionConfigOption);
}

/** A v1 permission request as v2 asks it: its own title and reason, the tool call as its subject. */
export function toV2Permission(request: v1.RequestPermissionRequest): v2.RequestPermissionRequest {
  const { toolCall, options, sessionId } = request;
  const own = (toolCall._meta as Record<string, { reason?: string }> | null | undefined)?.["deep-acp"];
  const subject = toolCallOnly({ sessionUpdate: "tool_call_update", ...toolCall });
  return {
    sessionId,
    title: toolCall.title ?? "Permission needed",
    ...(own?.reason ? { description: own.reason } : {}),
    subject: { type: "tool_call", toolCall: subject },
    options: options.map((o) => ({ optionId: o.optionId, name: o.name, kind: o.kind })),
  };
}

function toolCallOnly(update: Extract<v1.SessionUpdate, { sessionUpdate: "tool_call_update" }>): v2.ToolCallUpdate {
  const { sessionUpdate: _kind, content, ...fields } = update;
  return { ...fields, ...(content ? { content: content.map(toolContent) } : {}) } as v2.ToolCallUpdate;
}
