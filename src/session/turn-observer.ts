import type { AgentEvent, TurnEvent } from "../agent/events.js";
import type { HookEngine } from "../hooks/index.js";
import type { Message } from "../model/types.js";
import type { PlanEntry } from "../tools/types.js";
import type { Journal } from "../transcript/index.js";
import type { DialogEntry } from "../gate/door/trust.js";
import type { SessionCollaborators, SessionEvent, SessionEventSink } from "./services.js";
import type { SpendTracker } from "./spend.js";

/** What the observer keeps up to date: the session's record, its conversation, its state. */
export type ObservedSession = {
  journal: Journal;
  spend: SpendTracker;
  /** The conversation the next turn starts from: a message appended, or all of it after compaction. */
  conversation: { append(message: Message): void; replace(messages: Message[]): void };
  /** The latest plan and context use (for /context and a reloaded session). */
  planChanged(entries: PlanEntry[]): void;
  contextUsed(tokens: number): void;
};

/**
 * The session's one observer of its turns: every event and report of a turn (and of /compact and
 * the plan document) comes here, once, and feeds the transcript, the conversation, the spend and the
 * editor. `hooks`: the engine Notification hooks run from, during a prompt turn.
 */
export type TurnObserver = (event: TurnEvent, sink: SessionEventSink, hooks?: () => HookEngine) => void;

export function createTurnObserver(session: ObservedSession): TurnObserver {
  const { journal, spend, conversation } = session;
  /** An event the editor sees, and the transcript keeps. */
  const shown = (event: AgentEvent, sink: SessionEventSink) => {
    if (event.type === "plan") session.planChanged(event.entries);
    if (event.type === "usage") {
      event = spend.add(event);
      if (event.type === "usage") session.contextUsed(event.used);
    }
    // A subagent's requests are paid by the session too (its context is its own).
    if (event.type === "subagent_event" && event.event.type === "usage")
      event = { ...event, event: spend.add(event.event) };
    journal.event(event);
    sink(event);
  };
  return (event, sink, hooks) => {
    switch (event.type) {
      case "message":
        journal.message(event.message, event.messageId);
        return conversation.append(event.message);
      case "user_message":
        journal.user(event.messageId, [...event.blocks], event.message);
        return conversation.append(event.message);
      case "history_replaced":
        return conversation.replace(event.messages);
      case "notification": {
        const engine = hooks?.();
        if (engine?.hasHandlers("Notification", event.kind))
          void engine.run("Notification", { message: event.message, notification_type: event.kind, title: "deep-acp" });
        return;
      }
      case "editor_only":
        return sink(event.event);
      default:
        return shown(event, sink);
    }
  };
}

/**
 * The observer's side between turns: what the session's parts report while no turn runs goes up
 * here, and only here reaches the editor's channels (the one module that writes to them outside a
 * turn's sink). `later`: background processes' updates and workspace announcements, at any time;
 * `notice`: false when the editor cannot show it now (it is then shown at the next turn);
 * `reloadPending`: what a /reload would apply; `dialog`: the thread entries of the door's questions.
 */
export type SessionOutlet = {
  later(event: SessionEvent): void;
  notice(event: AgentEvent): boolean;
  reloadPending(summary: string): void;
  dialog(entry: DialogEntry): void;
};

export function createSessionOutlet(
  channels: Pick<SessionCollaborators, "updates" | "notify" | "onReloadPending">,
): SessionOutlet {
  const later = (event: SessionEvent) => channels.updates?.(event);
  return {
    later,
    notice: (event) => channels.notify?.(event) ?? false,
    reloadPending: (summary) => channels.onReloadPending?.(summary),
    // Not kept in the transcript: a question is asked again, or not, when the session is opened again.
    dialog: (entry) => later({ type: "dialog_entry", entry }),
  };
}
