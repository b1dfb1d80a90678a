import type { Door } from "../door/door.js";
import type { ApprovalOutcome, ApprovalRequest } from "../door/approver.js";
import type { TrustQuestion } from "../door/trust.js";

// What rooms that find something to ask about (extensions: project MCP servers, hooks, skill links,
// plugins; session/workspace: SSH host keys, dev containers) are handed: an asker backed by the
// session's door. They phrase the question; the door decides when it is shown and how it is drawn.

export type { TrustOptionKind, TrustQuestion } from "../door/trust.js";

export interface TrustAsker {
  /** Resolves with the chosen option id once the human answered; "cancelled" when nobody can. */
  ask(question: TrustQuestion): Promise<string>;
  /** Whether anybody can answer (an editor session; not headless). */
  readonly interactive: boolean;
}

export function trustThroughDoor(door: Door): TrustAsker {
  return { ask: (question) => door.trust(question), interactive: door.canAskTrust };
}

/** The door as the extensions' turn sees it: trust questions, and when a turn lets them through. */
export type TurnDoor = TrustAsker & {
  /** A turn starts: waiting trust questions are asked now (and new ones at once) while `signal` lives. */
  open(signal: AbortSignal): Promise<void>;
  /** The turn ended: trust questions wait for the next one. */
  close(): void;
};

export function turnDoor(door: Door): TurnDoor {
  return { ...trustThroughDoor(door), open: (signal) => door.open(signal), close: () => door.close() };
}

/** A review with no hook of its own (each of `/apply`'s files passed its hooks first): the dialog, in its turn. */
export interface ReviewAsker {
  review(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome>;
}

export function reviewThroughDoor(door: Door): ReviewAsker {
  return {
    review: async (request, signal) => {
      const answer = await door.permission({ signal, request: async () => request });
      if (typeof answer === "string") return answer;
      // No hook and no memory are given here, so the door answers with the dialog's outcome; should
      // that change, only an allow is an allow.
      return answer.settled === "hook" && answer.decision === "deny" ? "reject_once" : "allow_once";
    },
  };
}
