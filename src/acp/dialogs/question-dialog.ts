import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { FormAnswer, Questioner, UrlAnswer, UserAnswer, UserQuestion } from "../../tools/types.js";
import { secretInForm } from "../../gate/decide/secret-question.js";
import type { Logger } from "../../util/logger.js";

// ask_user and relayed MCP elicitations, shown the best way the client allows:
// 1. a form (`elicitation/create`, mode "form") when the client advertises `elicitation.form`;
// 2. a yes/no question as a permission-style choice (Yes = allow, No = reject), which every client has;
// 3. otherwise "unavailable": ask_user then asks in the conversation and ends the turn.
// Forms never ask for secrets (the spec forbids it): the gate refuses ask_user questions that ask
// for one, and relayed forms whose message, fields or kind of value ask for one are declined
// (gate/secret-question.ts).

export type ElicitationRequester = (
  params: acp.CreateElicitationRequest,
  signal: AbortSignal,
) => Promise<acp.CreateElicitationResponse>;
export type ElicitationCompleter = (params: acp.CompleteElicitationNotification) => void | Promise<void>;
export type ChoiceRequester = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

export type QuestionDialogOptions = {
  sessionId: string;
  capabilities: acp.ClientCapabilities;
  elicit: ElicitationRequester;
  choose: ChoiceRequester;
  /** Sends `elicitation/complete` (URL mode). */
  complete?: ElicitationCompleter;
  logger: Logger;
  /** Whether a subagent's question is asked under its child session's id (the editor shows child sessions). */
  childSessions?: () => boolean;
};

const OTHER = "other";
const ANSWER = "answer";

export function createQuestionDialog(options: QuestionDialogOptions): Questioner {
  const canForm = () => options.capabilities.elicitation?.form != null;
  const canUrl = () => options.capabilities.elicitation?.url != null;
  return {
    get forms() {
      return canForm();
    },
    async ask(question, { toolCallId, subagentSessionId }, signal): Promise<UserAnswer> {
      if (signal.aborted) return { outcome: "cancelled" };
      // The question belongs to the child session its tool call is shown in.
      const asker =
        subagentSessionId && options.childSessions?.() ? { ...options, sessionId: subagentSessionId } : options;
      if (canForm()) {
        const schema = questionSchema(question);
        const response = await requestForm(asker, { message: question.question, schema, toolCallId }, signal);
        if (response.action === "accept") return parseAnswer(question, response.content);
        // "cancel" is the user closing the form: for the model that is a refusal to answer.
        if (response.action !== "unsupported")
          return signal.aborted ? { outcome: "cancelled" } : { outcome: "declined" };
      }
      if (isYesNo(question)) return askYesNo(asker, question, toolCallId, signal);
      return { outcome: "unavailable", reason: "the editor cannot show forms" };
    },
    async form(request, { toolCallId }, signal): Promise<FormAnswer> {
      if (!canForm())
        return { action: "unsupported", reason: "the editor cannot show forms (no elicitation.form capability)" };
      const secret = secretInForm(request.message, request.schema);
      if (secret)
        return {
          action: "unsupported",
          reason: `${secret}, which looks like a secret; forms must not collect secrets`,
          secret: true,
        };
      return requestForm(options, { message: request.message, schema: request.schema, toolCallId }, signal);
    },
    get urls() {
      return canUrl();
    },
    async openUrl(request, signal): Promise<UrlAnswer> {
      // Agents must not use a mode the client did not advertise.
      if (!canUrl()) return "unsupported";
      try {
        const params = {
          sessionId: options.sessionId,
          mode: "url",
          elicitationId: request.elicitationId,
          url: request.url,
          message: request.message,
        } as acp.CreateElicitationRequest;
        const response = await options.elicit(params, signal);
        return response.action === "accept" ? "accept" : response.action === "decline" ? "decline" : "cancel";
      } catch (error) {
        if (signal.aborted) return "cancel";
        options.logger.warn("elicitation/create (url) failed", error);
        return "unsupported";
      }
    },
    urlDone(elicitationId) {
      void Promise.resolve(options.complete?.({ elicitationId } as acp.CompleteElicitationNotification)).catch(
        (error) => options.logger.warn("elicitation/complete failed", error),
      );
    },
  };
}

async function requestForm(
  options: QuestionDialogOptions,
  request: { message: string; schema: Record<string, unknown>; toolCallId?: string },
  signal: AbortSignal,
): Promise<FormAnswer> {
  try {
    const response = await options.elicit(
      {
        sessionId: options.sessionId,
        ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
        mode: "form",
        message: request.message,
        requestedSchema: request.schema as acp.ElicitationSchema,
      },
      signal,
    );
    if (response.action === "accept")
      return { action: "accept", content: (response as { content?: Record<string, unknown> | null }).content ?? {} };
    if (response.action === "decline") return { action: "decline" };
    return { action: "cancel" };
  } catch (error) {
    if (signal.aborted) return { action: "cancel" };
    options.logger.warn("elicitation/create failed", error);
    return { action: "unsupported", reason: `the editor could not show the form: ${(error as Error).message}` };
  }
}

export function questionSchema(question: UserQuestion): Record<string, unknown> {
  if (!question.options) {
    return {
      type: "object",
      properties: { [ANSWER]: { type: "string", title: "Your answer", minLength: 1 } },
      required: [ANSWER],
    };
  }
  const choices = question.options.map((option) => ({ const: option, title: option }));
  const pick = question.multiSelect
    ? { type: "array", title: "Choose any", items: { anyOf: choices } }
    : { type: "string", title: "Choose one", oneOf: choices };
  return {
    type: "object",
    properties: { [ANSWER]: pick, [OTHER]: { type: "string", title: "Or answer in your own words" } },
  };
}

function parseAnswer(question: UserQuestion, content: Record<string, unknown>): UserAnswer {
  const raw = content[ANSWER];
  const picked = (Array.isArray(raw) ? raw : raw === undefined || raw === "" ? [] : [raw]).map(String);
  const allowed = question.options;
  const selected = allowed ? picked.filter((value) => allowed.includes(value)) : [];
  const free = [allowed ? "" : picked.join(", "), typeof content[OTHER] === "string" ? (content[OTHER] as string) : ""]
    .map((t) => t.trim())
    .filter(Boolean)
    .join("\n");
  return { outcome: "answered", selected, ...(free ? { text: free } : {}) };
}

const YES = /^(yes|y)$/i;
const NO = /^(no|n)$/i;

function isYesNo(question: UserQuestion): boolean {
  const options = question.options;
  return (
    !question.multiSelect &&
    options?.length === 2 &&
    options.some((o) => YES.test(o.trim())) &&
    options.some((o) => NO.test(o.trim()))
  );
}

async function askYesNo(
  options: QuestionDialogOptions,
  question: UserQuestion,
  toolCallId: string,
  signal: AbortSignal,
): Promise<UserAnswer> {
  const yes = question.options!.find((o) => YES.test(o.trim()))!;
  const no = question.options!.find((o) => NO.test(o.trim()))!;
  try {
    const response = await options.choose(
      {
        sessionId: options.sessionId,
        toolCall: { toolCallId, title: question.question, kind: "other", status: "pending" },
        options: [
          { optionId: "yes", name: yes, kind: "allow_once" },
          { optionId: "no", name: no, kind: "reject_once" },
        ],
      },
      signal,
    );
    if (response.outcome.outcome === "cancelled") return { outcome: "cancelled" };
    return { outcome: "answered", selected: [response.outcome.optionId === "yes" ? yes : no] };
  } catch (error) {
    if (signal.aborted) return { outcome: "cancelled" };
    options.logger.warn("question as a permission choice failed", error);
    return { outcome: "unavailable", reason: "the editor could not show the question" };
  }
}
