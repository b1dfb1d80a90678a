import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { ApprovalOutcome, ApprovalRequest, Approver } from "../../gate/door/approver.js";
import type { Logger } from "../../util/logger.js";
import { META_KEY, toToolCallContent } from "../updates/translate.js";

export type PermissionRequester = (
  params: acp.RequestPermissionRequest,
  signal: AbortSignal,
) => Promise<acp.RequestPermissionResponse>;

const OPTION_IDS = ["allow_once", "allow_always", "reject_once", "reject_always"] as const;

/**
 * How long an open dialog still waits for the editor's answer after the turn is cancelled. The
 * editor must answer `cancelled` (Zed does at once); waiting for it keeps the call's final `failed`
 * after the answer, where agent-shell and Zed expect it, and a client that never answers costs this.
 */
export const CANCELLED_DIALOG_GRACE_MS = 1_000;

/** `signal`, aborted `graceMs` after it is. */
function afterGrace(signal: AbortSignal, graceMs: number): { signal: AbortSignal; dispose: () => void } {
  const late = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const onAbort = () => (timer = setTimeout(() => late.abort(signal.reason), graceMs));
  if (signal.aborted) onAbort();
  else signal.addEventListener("abort", onAbort, { once: true });
  return {
    signal: late.signal,
    dispose: () => {
      signal.removeEventListener("abort", onAbort);
      clearTimeout(timer);
    },
  };
}

/**
 * The agent's Approver as an editor dialog (`session/request_permission`). A subagent's dialog is
 * asked under its child session's id when the editor shows child sessions (`childSessions()`).
 */
export function createPermissionDialog(
  sessionId: string,
  request: PermissionRequester,
  logger: Logger,
  childSessions: () => boolean = () => false,
): Approver {
  return {
    async requestApproval(req: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome> {
      if (signal.aborted) return "cancelled";
      const late = afterGrace(signal, CANCELLED_DIALOG_GRACE_MS);
      try {
        const asker = req.subagentSessionId && childSessions() ? req.subagentSessionId : sessionId;
        const response = await request(permissionParams(asker, req), late.signal);
        if (signal.aborted || response.outcome.outcome === "cancelled") return "cancelled";
        const id = response.outcome.optionId;
        return (OPTION_IDS as readonly string[]).includes(id) ? (id as ApprovalOutcome) : "reject_once";
      } catch (error) {
        if (signal.aborted) return "cancelled";
        // An editor that cannot show the dialog must not let the call through.
        logger.warn("permission request failed; treating it as a rejection", error);
        return "reject_once";
      } finally {
        late.dispose();
      }
    },
  };
}

export function permissionParams(sessionId: string, req: ApprovalRequest): acp.RequestPermissionRequest {
  const options: acp.PermissionOption[] = [{ optionId: "allow_once", name: "Allow", kind: "allow_once" }];
  if (req.alwaysLabel) options.push({ optionId: "allow_always", name: req.alwaysLabel, kind: "allow_always" });
  options.push({ optionId: "reject_once", name: "Reject", kind: "reject_once" });
  if (req.alwaysLabel) options.push({ optionId: "reject_always", name: "Always reject", kind: "reject_always" });
  return {
    sessionId,
    toolCall: {
      toolCallId: req.toolCallId,
      title: req.title,
      kind: req.kind,
      status: "pending",
      rawInput: req.rawInput,
      locations: req.locations,
      // What the call does and why it asks, in words, after any preview (the gate's own text).
      content: [
        ...(req.preview && req.preview.length > 0 ? toToolCallContent(req.preview) : []),
        { type: "content", content: { type: "text", text: `Why this asks: ${req.reason}.` } },
      ],
      _meta: {
        [META_KEY]: { reason: req.reason, ...(req.parentToolCallId ? { parentToolCallId: req.parentToolCallId } : {}) },
      },
    },
    options,
  };
}
