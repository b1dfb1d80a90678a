import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { ToolDisplay } from "../tools/types.js";
import type { SessionEvent } from "../session/index.js";
import { createQuotaTranslator } from "./quota.js";
import { planUpdates } from "./plan-updates.js";
import { createSubagentUpdates, type SessionContext } from "./subagent-updates.js";
import type { RoutedUpdate } from "./update-stream.js";

/** What the connected editor can show, from its `initialize` capabilities. */
export type ClientFeatures = {
  /** `_meta.terminal_output`: live output of agent-run commands (Zed's display-only terminal). */
  terminalOutput: boolean;
  /** `session.notices` */
  notices: boolean;
  /** `session.compaction` */
  compaction: boolean;
  /** The quotas-and-limits draft's `session.quota` (see quota.ts): `quota_update` instead of notices. */
  quota?: boolean;
  /** claude-agent-acp's prompt queueing, asked for (steering.ts): prompts sent during a turn join it. */
  steering?: boolean;
  /** `subagents`: a subagent's run is a child session of its own. */
  subagents?: boolean;
  /** `plan`: plan operations (`plan_update` / `plan_removed`) instead of the legacy `plan`. */
  plans?: boolean;
};

/** Where `_meta` puts our own extension data. */
export const META_KEY = "deep-acp";

export function toToolCallContent(display: readonly ToolDisplay[]): acp.ToolCallContent[] {
  return display.map((item): acp.ToolCallContent => {
    switch (item.type) {
      case "text":
        return { type: "content", content: { type: "text", text: item.text } };
      case "image":
        return { type: "content", content: { type: "image", data: item.data, mimeType: item.mimeType } };
      case "diff":
        return { type: "diff", path: item.path, oldText: item.oldText, newText: item.newText };
      case "terminal":
        return { type: "terminal", terminalId: item.terminalId };
    }
  });
}

// A subagent's (or eval's) own tool calls name the call they belong to twice: under our key, and as
// `claudeCode.parentToolUseId`, the convention claude-agent-acp set and that clients which nest
// subagent activity (Tidewave and others) already read.
function parentMeta(parentToolCallId: string | undefined): { _meta?: Record<string, unknown> } {
  return parentToolCallId
    ? { _meta: { [META_KEY]: { parentToolCallId }, claudeCode: { parentToolUseId: parentToolCallId } } }
    : {};
}

function mergeMeta(...parts: Array<Record<string, unknown> | undefined>): { _meta?: Record<string, unknown> } {
  const merged = Object.assign({}, ...parts.filter(Boolean)) as Record<string, unknown>;
  return Object.keys(merged).length > 0 ? { _meta: merged } : {};
}

/**
 * Maps session events to ACP session updates. The only state is which tool calls stream into a
 * display-only terminal, so their final update can point at it and report the exit, and which
 * subagents are running (their child sessions' updates are routed to their own ids). `session` is
 * the session the updates are for; without it subagents show as they do without child sessions.
 */
export function createTranslator(features: ClientFeatures, session?: SessionContext) {
  const liveTerminals = new Set<string>();
  const quota = createQuotaTranslator(features.quota === true);
  const subagents = createSubagentUpdates({
    childSessions: features.subagents === true,
    parent: session,
    childTranslator: (child) => createTranslator({ ...features, subagents: false }, child),
  });

  return function translate(event: SessionEvent): Array<acp.SessionUpdate | RoutedUpdate> {
    switch (event.type) {
      case "subagent_started":
      case "subagent_event":
      case "subagent_ended":
        return subagents(event, translate);
      case "message_chunk":
        return [
          {
            sessionUpdate: "agent_message_chunk",
            messageId: event.messageId,
            content: { type: "text", text: event.text },
          },
        ];
      case "thought_chunk":
        return [
          {
            sessionUpdate: "agent_thought_chunk",
            messageId: event.messageId,
            content: { type: "text", text: event.text },
          },
        ];
      case "tool_call": {
        const live = event.liveTerminal && features.terminalOutput ? event.liveTerminal : undefined;
        if (live) liveTerminals.add(event.toolCallId);
        return [
          {
            sessionUpdate: "tool_call",
            toolCallId: event.toolCallId,
            title: event.title,
            kind: event.kind,
            status: event.status,
            locations: event.locations,
            rawInput: event.rawInput,
            ...(live ? { content: [{ type: "terminal", terminalId: live.terminalId }] } : {}),
            ...mergeMeta(
              live ? { terminal_info: { terminal_id: live.terminalId, cwd: live.cwd } } : undefined,
              event.parentToolCallId
                ? {
                    [META_KEY]: { parentToolCallId: event.parentToolCallId, toolName: event.name },
                    claudeCode: { parentToolUseId: event.parentToolCallId, toolName: event.name },
                  }
                : { [META_KEY]: { toolName: event.name } },
            ),
          },
        ];
      }
      case "tool_output":
        if (!liveTerminals.has(event.toolCallId)) return [];
        return [
          {
            sessionUpdate: "tool_call_update",
            toolCallId: event.toolCallId,
            ...mergeMeta(
              { terminal_output: { terminal_id: event.terminalId, data: event.data } },
              parentMeta(event.parentToolCallId)._meta,
            ),
          },
        ];
      case "tool_call_update": {
        const finished = event.status === "completed" || event.status === "failed";
        const starting =
          event.liveTerminal && features.terminalOutput && !liveTerminals.has(event.toolCallId)
            ? event.liveTerminal
            : undefined;
        if (starting) liveTerminals.add(event.toolCallId);
        const live = liveTerminals.has(event.toolCallId);
        if (event.fallbackOnly && live) return [];
        const update: acp.SessionUpdate = {
          sessionUpdate: "tool_call_update",
          toolCallId: event.toolCallId,
          ...(event.status ? { status: event.status } : {}),
          ...(event.title !== undefined ? { title: event.title } : {}),
          ...(event.locations ? { locations: event.locations } : {}),
          ...(event.rawInput !== undefined ? { rawInput: event.rawInput } : {}),
          ...(event.rawOutput !== undefined ? { rawOutput: event.rawOutput } : {}),
          ...(event.content && !(live && (finished || event.liveTerminal))
            ? { content: toToolCallContent(event.content) }
            : {}),
          ...parentMeta(event.parentToolCallId),
        };
        if (starting) {
          update.content = [{ type: "terminal", terminalId: starting.terminalId }];
          update._meta = { ...update._meta, terminal_info: { terminal_id: starting.terminalId, cwd: starting.cwd } };
        }
        if (live && finished) {
          liveTerminals.delete(event.toolCallId);
          const raw = (event.rawOutput ?? {}) as { exitCode?: number | null; signal?: string | null };
          update.content = [{ type: "terminal", terminalId: event.toolCallId }];
          update._meta = {
            ...update._meta,
            terminal_exit: {
              terminal_id: event.toolCallId,
              exit_code: raw.exitCode ?? null,
              signal: raw.signal ?? null,
            },
          };
        }
        return [update];
      }
      case "plan":
      case "plan_document":
        return planUpdates(event, features.plans === true, META_KEY);
      case "usage":
        return [
          {
            sessionUpdate: "usage_update",
            used: event.used,
            size: event.size,
            ...(event.sessionCostUsd !== undefined
              ? { cost: { amount: roundUsd(event.sessionCostUsd), currency: "USD" } }
              : {}),
          },
        ];
      case "notice":
        return [noticeUpdate(event, features)];
      case "quota":
        return quota(event.pool).map((update) =>
          update.type === "notice" ? noticeUpdate(update, features) : update.update,
        );
      case "compaction":
        if (features.compaction) {
          return [
            {
              sessionUpdate: "compaction_update",
              compactionId: event.compactionId,
              status: event.status,
              ...(event.summary ? { summary: [{ type: "text", text: event.summary }] } : {}),
              ...(event.error ? { error: event.error } : {}),
            },
          ];
        }
        if (event.status === "in_progress") return [];
        return [
          textChunk(
            `compaction-${event.compactionId}`,
            event.status === "completed"
              ? "_Conversation compacted: older messages were summarized to free context._\n\n"
              : `_Compaction failed: ${event.error ?? "unknown error"}_\n\n`,
          ),
        ];
      case "session_info":
        return [
          {
            sessionUpdate: "session_info_update",
            ...(event.title !== undefined ? { title: event.title } : {}),
            updatedAt: event.updatedAt,
            ...(event.workspace !== undefined ? { _meta: { [META_KEY]: { workspace: event.workspace } } } : {}),
          },
        ];
    }
  };
}

function noticeUpdate(event: Extract<SessionEvent, { type: "notice" }>, features: ClientFeatures): acp.SessionUpdate {
  if (features.notices) {
    return {
      sessionUpdate: "notice",
      severity: event.severity,
      title: event.title,
      ...(event.description ? { description: event.description } : {}),
    };
  }
  const text = event.description ? `${event.title}: ${event.description}` : event.title;
  // Without the notices capability: warnings belong in the thread, routine info in the thoughts.
  const id = `notice-${Math.random().toString(36).slice(2)}`;
  if (event.severity === "info")
    return { sessionUpdate: "agent_thought_chunk", messageId: id, content: { type: "text", text: `${text}\n` } };
  return textChunk(id, `> ${event.severity === "error" ? "Error" : "Warning"}: ${text}\n\n`);
}

function textChunk(messageId: string, text: string): acp.SessionUpdate {
  return { sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } };
}

/** Cents are too coarse for a session of cheap requests; more digits are noise. */
function roundUsd(amount: number): number {
  return Math.round(amount * 1_000_000) / 1_000_000;
}
