import type { ToolDisplay, ToolKind, ToolLocation } from "../../tools/types.js";

/** `unattended`: nobody could be asked (headless without --yes); the model must not read it as a user's no. */
export type ApprovalOutcome =
  "allow_once" | "allow_always" | "reject_once" | "reject_always" | "unattended" | "cancelled";

export type ApprovalRequest = {
  toolCallId: string;
  toolName: string;
  title: string;
  kind: ToolKind;
  rawInput: unknown;
  locations: ToolLocation[];
  /** Preview of what will happen (a diff for edits, the code for eval). */
  preview?: ToolDisplay[];
  /** Why the call needs a decision, in a few words ("runs a shell command", "outside the project"). */
  reason: string;
  /** Label for the "always" choice, or null when "always" is not offered (e.g. shell metacharacters). */
  alwaysLabel: string | null;
  parentToolCallId?: string;
  /** The subagent's child session, when a subagent's call asks. */
  subagentSessionId?: string;
};

/**
 * Decides whether a tool call may run. The agent never talks to the editor: ACP implements this
 * with `session/request_permission`, headless mode with its `--yes` flag.
 * Contract: resolves `cancelled` (never rejects) when `signal` aborts.
 */
export interface Approver {
  requestApproval(request: ApprovalRequest, signal: AbortSignal): Promise<ApprovalOutcome>;
}
