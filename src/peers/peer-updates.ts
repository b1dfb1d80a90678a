import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../agent/events.js";
import type { Usage } from "../model/types.js";
import type { PlanEntry, ToolDisplay, ToolKind, ToolLocation } from "../tools/types.js";

// What the child says about its work (session/update), as events of our own subagent runs: its
// text, thoughts, tool calls and plans, which acp/ then shows as a child session or nested under the
// parent's task call, the transcript keeps, and session/load replays. The child's tool call ids are
// its own, so they are prefixed with the run's id: two children (or a child and we) may both say "1".

export type PeerUpdates = {
  apply(update: acp.SessionUpdate): void;
  /** The child's final answer: its last message after its last tool call (or all of its text). */
  answer(): string;
  /** The child's last reported cost in USD, if it reports one. */
  costUsd(): number | undefined;
  /** The child's last reported context use and window (usage_update), if it reports them. */
  window(): { used: number; size: number } | undefined;
};

const KINDS = new Set<ToolKind>([
  "read",
  "edit",
  "delete",
  "move",
  "search",
  "execute",
  "think",
  "fetch",
  "switch_mode",
  "other",
]);

export function createPeerUpdates(options: {
  /** The run's id (the child session's id in our editor): prefixes the child's tool call ids. */
  runId: string;
  /** The parent's task call: what editors without child sessions nest the child's calls under. */
  parentToolCallId: string;
  emit: (event: AgentEvent) => void;
  /** The text of a terminal we serve the child, shown where its tool call embeds the terminal. */
  terminalText?: (terminalId: string) => string | undefined;
  /**
   * The child's calls of tools we serve it (gate-tools.ts): not shown, since each is our own tool
   * call already, with its diff, dialog and output.
   */
  ours?: (call: acp.ToolCall) => boolean;
}): PeerUpdates {
  const { runId, parentToolCallId, emit } = options;
  const id = (toolCallId: string) => `${runId}/${toolCallId}`;
  /** Text of the child's messages; a tool call starts a new segment. */
  const segments: string[] = [""];
  let cost: number | undefined;
  let window: { used: number; size: number } | undefined;
  const hidden = new Set<string>();
  const display = (content: readonly acp.ToolCallContent[] | null | undefined) =>
    (content ?? []).flatMap((item) => toDisplay(item, options.terminalText));

  return {
    apply(update) {
      switch (update.sessionUpdate) {
        case "agent_message_chunk":
          if (update.content.type !== "text") return;
          segments[segments.length - 1] += update.content.text;
          emit({ type: "message_chunk", messageId: update.messageId ?? `${runId}:message`, text: update.content.text });
          return;
        case "agent_thought_chunk":
          if (update.content.type !== "text") return;
          emit({ type: "thought_chunk", messageId: update.messageId ?? `${runId}:thought`, text: update.content.text });
          return;
        case "tool_call":
          if (segments.at(-1)!.trim()) segments.push("");
          if (options.ours?.(update)) return void hidden.add(update.toolCallId);
          emit({
            type: "tool_call",
            toolCallId: id(update.toolCallId),
            name: update.title,
            title: update.title,
            kind: kindOf(update.kind),
            status: update.status ?? "pending",
            locations: locations(update.locations),
            rawInput: update.rawInput ?? {},
            parentToolCallId,
          });
          if (update.content?.length)
            emit({
              type: "tool_call_update",
              toolCallId: id(update.toolCallId),
              content: display(update.content),
              parentToolCallId,
            });
          return;
        case "tool_call_update": {
          if (hidden.has(update.toolCallId)) return;
          const event: Extract<AgentEvent, { type: "tool_call_update" }> = {
            type: "tool_call_update",
            toolCallId: id(update.toolCallId),
            parentToolCallId,
          };
          if (update.status) event.status = update.status;
          if (update.title) event.title = update.title;
          if (update.content) event.content = display(update.content);
          if (update.locations) event.locations = locations(update.locations);
          if (update.rawInput !== undefined && update.rawInput !== null) event.rawInput = update.rawInput;
          if (update.rawOutput !== undefined && update.rawOutput !== null) event.rawOutput = update.rawOutput;
          emit(event);
          return;
        }
        case "plan":
          emit({ type: "plan", entries: update.entries.map(planEntry) });
          return;
        case "usage_update":
          if (update.cost && update.cost.currency.toUpperCase() === "USD") cost = update.cost.amount;
          window = { used: update.used, size: update.size };
          return;
        default:
          // Commands, modes, config options, titles of the child's own session: not ours to show.
          return;
      }
    },
    answer() {
      const last = [...segments].reverse().find((s) => s.trim());
      return (last ?? "").trim();
    },
    costUsd: () => cost,
    window: () => window,
  };
}

/** The child's token counts as ours (its prompt response's `usage`). */
export function peerUsage(usage: acp.Usage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens + (usage.thoughtTokens ?? 0),
    ...(usage.cachedReadTokens ? { cacheReadTokens: usage.cachedReadTokens } : {}),
    ...(usage.cachedWriteTokens ? { cacheWriteTokens: usage.cachedWriteTokens } : {}),
  };
}

function kindOf(kind: string | null | undefined): ToolKind {
  return kind && KINDS.has(kind as ToolKind) ? (kind as ToolKind) : "other";
}

function locations(list: readonly acp.ToolCallLocation[] | null | undefined): ToolLocation[] {
  return (list ?? []).map((l) => (typeof l.line === "number" ? { path: l.path, line: l.line } : { path: l.path }));
}

function planEntry(entry: acp.PlanEntry): PlanEntry {
  return { content: entry.content, status: entry.status, priority: entry.priority };
}

function toDisplay(
  item: acp.ToolCallContent,
  terminalText: ((terminalId: string) => string | undefined) | undefined,
): ToolDisplay[] {
  switch (item.type) {
    case "content":
      if (item.content.type === "text") return [{ type: "text", text: item.content.text }];
      if (item.content.type === "image")
        return [{ type: "image", mimeType: item.content.mimeType, data: item.content.data }];
      return [];
    case "diff":
      return [{ type: "diff", path: item.path, oldText: item.oldText ?? null, newText: item.newText }];
    case "terminal": {
      // Our terminal for the child is no terminal of the editor's: its output is shown as text.
      const text = terminalText?.(item.terminalId);
      return text === undefined ? [] : [{ type: "text", text: "```\n" + text + "\n```" }];
    }
    default:
      return [];
  }
}
