import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { AgentEvent } from "../../agent/events.js";

// Plans as the editor sees them. Clients that advertise `plan` (ACP "Plan operations") get the todo
// list as an item plan replaced by id (`plan_update`), `plan_removed` when it is cleared, and the plan
// a `plan`-mode turn ends with as a Markdown plan document, which stays when the mode changes (the
// user carries it out next). Everyone else keeps the legacy `plan` update, and reads the plan-mode
// plan as the agent's message, as before.

/** The id of the todo list (write_todos) among a session's plans. */
export const TODO_PLAN_ID = "todos";

type PlanEvent = Extract<AgentEvent, { type: "plan" | "plan_document" }>;

/** `metaKey`: where our own `_meta` goes (translate.ts owns it). */
export function planUpdates(event: PlanEvent, planOperations: boolean, metaKey: string): acp.SessionUpdate[] {
  if (event.type === "plan_document") {
    if (!planOperations) return [];
    // The stable spec names the file by its absolute `path` on the Markdown plan; the SDK's schema
    // (2.4.0) predates that field but allows it, and its types do not know it, so the path is also in
    // our _meta for clients that read only what those types carry.
    const plan = {
      type: "markdown",
      planId: event.planId,
      content: event.content,
      ...(event.path ? { path: event.path } : {}),
    };
    return [
      {
        sessionUpdate: "plan_update",
        plan: plan as acp.PlanUpdateContent,
        ...(event.path ? { _meta: { [metaKey]: { path: event.path } } } : {}),
      },
    ];
  }
  if (!planOperations) return [{ sessionUpdate: "plan", entries: event.entries }];
  if (event.entries.length === 0) return [{ sessionUpdate: "plan_removed", planId: TODO_PLAN_ID }];
  return [{ sessionUpdate: "plan_update", plan: { type: "items", planId: TODO_PLAN_ID, entries: event.entries } }];
}
