import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionEvent } from "../../session/index.js";
import { createQuotaTranslator, readQuota } from "../quota/quota.js";
import { createClaudeRateLimits, type QuotaShapes } from "../quota/editor-shapes.js";
import type { QuotaPool } from "../../model/limits.js";
import { planUpdates } from "./plan-updates.js";
import { createToolCallUpdates } from "./tool-call-updates.js";
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
  /** The quotas-and-limits draft's `session.quota` (see quota/quota.ts): `quota_update` instead of notices. */
  quota?: boolean;
  /** claude-agent-acp's prompt queueing, asked for (handlers/steering.ts): prompts sent during a turn join it. */
  steering?: boolean;
  /** `subagents`: a subagent's run is a child session of its own. */
  subagents?: boolean;
  /** `plan`: plan operations (`plan_update` / `plan_removed`) instead of the legacy `plan`. */
  plans?: boolean;
  /** The adapters' quota shapes the client reads (quota/editor-shapes.ts). */
  quotaShapes?: QuotaShapes;
};

/** Where a session's limits go beside its updates: the connection's account push (quota/editor-shapes.ts). */
export type AccountSink = (pool: QuotaPool) => void;

/** Where `_meta` puts our own extension data. */
export const META_KEY = "deep-acp";

export { toToolCallContent } from "./tool-call-updates.js";

/**
 * Maps session events to ACP session updates. The only state is which tool calls stream into a
 * display-only terminal (tool-call-updates.ts), and which subagents are running (their child sessions' updates are routed to their own ids). `session` is
 * the session the updates are for; without it subagents show as they do without child sessions.
 */
export function createTranslator(features: ClientFeatures, session?: SessionContext, account?: AccountSink) {
  const toolCalls = createToolCallUpdates(features.terminalOutput, META_KEY);
  const quota = createQuotaTranslator(features.quota === true);
  const claude = features.quotaShapes?.claudeRateLimit ? createClaudeRateLimits() : undefined;
  // At session start: the standard snapshot, and the account push of what this process knows.
  const quotaAtStart = () => {
    if (account) for (const pool of readQuota().pools) account(pool);
    return quota.atStart();
  };
  const subagents = createSubagentUpdates({
    childSessions: features.subagents === true,
    parent: session,
    childTranslator: (child) => createTranslator({ ...features, subagents: false }, child),
  });

  // One case per event type (the compiler checks they are all there); each non-trivial one is a function.
  return Object.assign(translate, { endOpenToolCalls: toolCalls.endOpenCalls, quotaAtStart });
  function translate(event: SessionEvent): Array<acp.SessionUpdate | RoutedUpdate> {
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
      case "tool_call":
      case "tool_output":
      case "tool_call_update":
        return toolCalls(event);
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
          ...(claude?.usage(event.used, event.size) ?? []),
        ];
      case "notice":
        return [noticeUpdate(event, features)];
      case "quota":
        account?.(event.pool);
        return [
          ...quota(event.pool).map((update) =>
            update.type === "notice" ? noticeUpdate(update, features) : update.update,
          ),
          ...(claude?.updates(event.pool) ?? []),
        ];
      case "compaction":
        return compactionUpdates(event, features);
      case "dialog_entry":
        return [dialogEntryUpdate(event.entry)];
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
  }
}

/** A trust question's thread entry (editors that attach dialogs to tool calls show it there), then its answer. */
function dialogEntryUpdate(entry: Extract<SessionEvent, { type: "dialog_entry" }>["entry"]): acp.SessionUpdate {
  if (entry.phase === "asking")
    return {
      sessionUpdate: "tool_call",
      toolCallId: entry.toolCallId,
      title: entry.title,
      kind: "other",
      status: "pending",
      content: [{ type: "content", content: { type: "text", text: entry.body } }],
      _meta: { [META_KEY]: { trust: entry.trustKey } },
    };
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: entry.toolCallId,
    status: entry.allowed ? "completed" : "failed",
    content: [{ type: "content", content: { type: "text", text: entry.text } }],
  };
}

function compactionUpdates(
  event: Extract<SessionEvent, { type: "compaction" }>,
  features: ClientFeatures,
): acp.SessionUpdate[] {
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
