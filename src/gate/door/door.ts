import { randomUUID } from "node:crypto";
import type { FormAnswer, Questioner, UserAnswer, UserQuestion, UrlAnswer } from "../../tools/types.js";
import { createMutex } from "../../util/mutex.js";
import type { ApprovalOutcome, ApprovalRequest, Approver } from "./approver.js";
import { answeredEntry, createTrustQueue, type DialogEntry, type TrustDialog, type TrustQuestion } from "./trust.js";

// The session's one door to its human. Every question — a tool call's permission dialog, an
// ask_user question or an MCP server's form, `/apply`'s review, a trust question of any kind — is a
// request to it: one dialog at a time, in arrival order, and the answer comes back on the caller's
// own call. The editor's renderers (acp/dialogs) only draw what the door asks; the thread entries
// of trust questions go up through the session's observer (`entries`).

/** What the door shows its questions with; the door owns when. */
export type DoorDialogs = {
  approver: Approver;
  questioner?: Questioner;
  /** Absent: nobody can answer trust questions (headless); they are refused. */
  trust?: TrustDialog;
};

/** The PermissionRequest hooks' answer to a dialog about to be shown. */
export type DoorHookAnswer = { decision?: "allow" | "deny"; message?: string };

/** A permission dialog, as the door asks it: what may settle it first, then the request itself. */
export type PermissionAsk = {
  signal: AbortSignal;
  /** A remembered answer given while this one waited for the door (checked first). */
  remembered?: () => boolean;
  /** The PermissionRequest hooks, run once it is this dialog's turn: they decide before any dialog. */
  hook?: () => Promise<DoorHookAnswer | undefined>;
  /** Built once nothing else settled it (a preview is read only for a dialog that is shown). */
  request: () => Promise<ApprovalRequest>;
  /**
   * Runs in the very tick the editor's answer arrives, before the door lets the next dialog through:
   * an editor that cancels the turn right after rejecting (its cancel is the next line) must see the
   * rejection first.
   */
  answered?: (outcome: ApprovalOutcome) => void;
};

export type PermissionAnswer =
  | ApprovalOutcome
  | { settled: "remembered" }
  | { settled: "hook"; decision: "allow" }
  | { settled: "hook"; decision: "deny"; message: string };

export type Door = {
  permission(ask: PermissionAsk): Promise<PermissionAnswer>;
  /** ask_user questions, MCP servers' forms and sign-in links; absent when the editor cannot show them. */
  readonly questioner: Questioner | undefined;
  /** A trust question; waits for a turn to open the door, "cancelled" when nobody can answer. */
  trust(question: TrustQuestion): Promise<string>;
  /** Whether anybody can answer trust questions. */
  readonly canAskTrust: boolean;
  /** A turn starts: trust questions waiting (and arriving) are asked while `signal` lives. */
  open(signal: AbortSignal): Promise<void>;
  /** The turn ended: trust questions wait for the next one. */
  close(): void;
};

export function createDoor(dialogs: DoorDialogs, entries: (entry: DialogEntry) => void = () => undefined): Door {
  const inDialog = createMutex();
  const { approver, questioner, trust: trustDialog } = dialogs;

  const trust = createTrustQueue((question, signal) =>
    inDialog(async () => {
      // Its turn ended while it waited for the lock: nothing shown, it waits for the next turn.
      if (signal.aborted) return "cancelled";
      const toolCallId = `${question.key}-${randomUUID().slice(0, 8)}`;
      entries({ phase: "asking", toolCallId, title: question.title, body: question.body, trustKey: question.key });
      const answer = await trustDialog!.ask(question, toolCallId, signal).catch(() => "cancelled");
      // Closed either way, so the editor keeps no entry pending (unanswered reads "not answered").
      entries(answeredEntry(question, toolCallId, answer));
      return answer;
    }),
  );

  const permission = (ask: PermissionAsk): Promise<PermissionAnswer> =>
    inDialog(async () => {
      if (ask.signal.aborted) return "cancelled";
      if (ask.remembered?.()) return { settled: "remembered" };
      const hook = await ask.hook?.();
      if (hook?.decision === "allow") return { settled: "hook", decision: "allow" };
      if (hook?.decision === "deny")
        return { settled: "hook", decision: "deny", message: hook.message ?? "no reason given" };
      if (ask.signal.aborted) return "cancelled";
      const outcome = await approver.requestApproval(await ask.request(), ask.signal);
      ask.answered?.(outcome);
      return outcome;
    });

  return {
    permission,
    questioner: questioner ? throughLock(questioner, inDialog) : undefined,
    trust: (question) => (trustDialog ? trust.ask(question) : Promise.resolve("cancelled")),
    canAskTrust: trustDialog !== undefined,
    open: (signal) => (trustDialog ? trust.open(signal) : Promise.resolve()),
    close: () => trust.close(),
  };
}

/** The questioner with every dialog of it waiting its turn at the door. */
function throughLock(questioner: Questioner, inDialog: ReturnType<typeof createMutex>): Questioner {
  return {
    get forms() {
      return questioner.forms;
    },
    get urls() {
      return questioner.urls;
    },
    ask: (question: UserQuestion, where, signal): Promise<UserAnswer> =>
      inDialog(() => questioner.ask(question, where, signal)),
    form: (request, where, signal): Promise<FormAnswer> => inDialog(() => questioner.form(request, where, signal)),
    ...(questioner.openUrl
      ? {
          openUrl: (
            request: Parameters<NonNullable<Questioner["openUrl"]>>[0],
            signal: AbortSignal,
          ): Promise<UrlAnswer> => inDialog(() => questioner.openUrl!(request, signal)),
        }
      : {}),
    ...(questioner.urlDone ? { urlDone: (id: string) => questioner.urlDone!(id) } : {}),
  };
}
