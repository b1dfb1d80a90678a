import * as acp from "@agentclientprotocol/sdk/unstable";
import type { SessionCollaborators } from "../../session/index.js";
import type { Logger } from "../../util/logger.js";
import { createPermissionDialog } from "./permission-dialog.js";
import { createQuestionDialog } from "./question-dialog.js";
import { createTrustDialog } from "./trust-dialog.js";

// The editor's renderers of what a session's door asks: permission dialogs, questions and forms,
// trust questions. They draw a question when the door shows it and return the answer; they never
// decide when to ask and never write to the session's updates (the door's entries go up through
// the session's observer). The only module that sends the client's dialog requests.

export type SessionDialogOptions = {
  client: acp.AgentContext;
  sessionId: string;
  capabilities: acp.ClientCapabilities;
  /** Read when a dialog opens: initialize has been answered by then. */
  childSessions: () => boolean;
  /** A child session's dialog: the child is shown blocked on the user while `ask` waits. */
  childDialog: <T>(
    request: acp.RequestPermissionRequest,
    signal: AbortSignal,
    ask: (request: acp.RequestPermissionRequest, signal: AbortSignal) => Promise<T>,
  ) => Promise<T>;
  logger: Logger;
};

export function createSessionDialogs(
  options: SessionDialogOptions,
): Pick<SessionCollaborators, "approver" | "questioner" | "trustDialog"> {
  const { client, sessionId, logger } = options;
  const ask = (request: acp.RequestPermissionRequest, signal: AbortSignal) =>
    client.request(acp.methods.client.session.requestPermission, request, {
      cancellationSignal: signal,
      stopWaitingOnCancel: true,
    });
  return {
    approver: createPermissionDialog(
      sessionId,
      (request, signal) =>
        request.sessionId === sessionId ? ask(request, signal) : options.childDialog(request, signal, ask),
      logger,
      options.childSessions,
    ),
    questioner: createQuestionDialog({
      sessionId,
      capabilities: options.capabilities,
      childSessions: options.childSessions,
      elicit: (params, signal) =>
        client.request(acp.methods.client.elicitation.create, params, {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        }),
      choose: ask,
      complete: (params) => client.notify(acp.methods.client.elicitation.complete, params),
      logger,
    }),
    trustDialog: createTrustDialog(sessionId, ask, logger),
  };
}
