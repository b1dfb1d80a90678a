import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../../agent/events.js";
import type { RoutedUpdate } from "./update-stream.js";

// A subagent's run as the editor sees it. For clients that advertise `subagents` it is a child
// session (ACP "Subagent sessions"): `subagent_update` on the parent announces it (title,
// description, cwd, cancel) before anything carries its id, the task it was given arrives as a
// `session_message` from the parent on the child, its own text, thoughts, plans and tool calls are
// sent under its id, and a last `subagent_update` reports it idle with its stop reason. Other
// clients see what they always saw: the subagent's tool calls in the parent session, tagged with the
// task call, and none of its text.

type SubagentLifecycle = Extract<AgentEvent, { type: "subagent_started" | "subagent_event" | "subagent_ended" }>;
type Translate = (event: AgentEvent) => Array<acp.SessionUpdate | RoutedUpdate>;

/** The session a translator speaks for: its id names the parent of its subagents. */
export type SessionContext = { sessionId: string; cwd: string };

/** Events a subagent shows only in its own session. */
const CHILD_ONLY = new Set<AgentEvent["type"]>(["message_chunk", "thought_chunk", "plan", "plan_document"]);

export function createSubagentUpdates(options: {
  childSessions: boolean;
  parent: SessionContext | undefined;
  /** A translator for a child session (its own live-terminal state). */
  childTranslator: (child: SessionContext) => Translate;
}) {
  const children = new Map<string, Translate>();

  return function translateSubagent(event: SubagentLifecycle, parentTranslate: Translate) {
    if (!options.childSessions || !options.parent) {
      if (event.type !== "subagent_event" || CHILD_ONLY.has(event.event.type)) return [];
      return parentTranslate(event.event);
    }
    const parent = options.parent;
    switch (event.type) {
      case "subagent_started": {
        children.set(event.sessionId, options.childTranslator({ sessionId: event.sessionId, cwd: parent.cwd }));
        const announce: acp.SessionUpdate = {
          sessionUpdate: "subagent_update",
          sessionId: event.sessionId,
          title: event.title,
          description: event.description,
          cwd: parent.cwd,
          capabilities: { cancel: {} },
        };
        const task: RoutedUpdate = {
          sessionId: event.sessionId,
          update: {
            sessionUpdate: "session_message",
            messageId: `${event.sessionId}:task`,
            senderSessionId: parent.sessionId,
            recipientSessionId: event.sessionId,
            content: [{ type: "text", text: event.prompt }],
          },
        };
        const running: acp.SessionUpdate = {
          sessionUpdate: "subagent_update",
          sessionId: event.sessionId,
          state: { state: "running" },
        };
        return [announce, task, running];
      }
      case "subagent_event": {
        const translate = children.get(event.sessionId);
        if (!translate) return [];
        return translate(ownEvent(event.event)).map((update) =>
          "sessionUpdate" in update ? { sessionId: event.sessionId, update } : update,
        );
      }
      case "subagent_ended": {
        children.delete(event.sessionId);
        const idle: acp.SessionUpdate = {
          sessionUpdate: "subagent_update",
          sessionId: event.sessionId,
          state: {
            state: "idle",
            stopReason: event.error ? "error" : event.stopReason,
            ...(event.error ? { error: { code: -32603, message: event.error } } : {}),
          },
          // It ran once and is done: nothing is left to cancel. An empty set, not null: in v1 a null
          // field means "unchanged", so only a concrete object withdraws `cancel`.
          capabilities: {},
        };
        return [idle];
      }
    }
  };
}

/**
 * An event of the child's own turn as its own session shows it: not tagged with the parent's task
 * call (that would nest it in the parent's view again), and without the parent session's running
 * cost (which the parent's next usage update carries).
 */
function ownEvent(event: AgentEvent): AgentEvent {
  if (event.type === "usage") {
    const { sessionCostUsd: _cost, ...rest } = event;
    return rest;
  }
  if ("parentToolCallId" in event && event.parentToolCallId !== undefined) {
    const { parentToolCallId: _parent, ...rest } = event;
    return rest as AgentEvent;
  }
  return event;
}
