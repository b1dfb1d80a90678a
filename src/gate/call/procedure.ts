import type { ToolContext, ToolDisplay, ToolPresentation } from "../../tools/types.js";
import type { GateDecision } from "../decide/decide.js";
import type { SessionMode } from "../decide/modes.js";
import type { ApprovalMemory } from "../memory/approval-memory.js";
import type { ApprovalOutcome, Approver } from "../door/approver.js";
import { createDoor, type Door } from "../door/door.js";
import type { ApprovedTargets } from "../../backends/paths/approved-targets.js";
import { forgetCommandsChangedBy, gateToolCall, rememberedAllows, type GatePolicy } from "./gate.js";
import type { CommandFingerprint } from "../commands/command-fingerprint.js";
import type { GateHooks, HookedToolCall } from "./hooks.js";

// The whole "may this run?" procedure for one tool call, carried out where it is decided: the
// gate's verdict on real paths, the PreToolUse hooks and the decision again with their verdict,
// the session's door (one dialog at a time: a remembered answer given while the call waited, the
// PermissionRequest hook, the preview, the approver), and remembering "always". The tool runner asks once and gets back
// run (with the real paths the backend must open), refused (with the model's message) or cancelled.

/**
 * The session's side of the gate: who is asked (its door; without one, a door of the turn's own in
 * front of `approver`), where "always" answers are kept, the workspace's rules.
 */
export type GateSession = ({ door: Door } | { approver: Approver }) & { memory: ApprovalMemory; policy?: GatePolicy };

/** What a turn's calls are decided with: the session's side plus the turn's mode and what it may read. */
export type GateSettings = GateSession & {
  mode: SessionMode;
  /** Route prefixes of the agent's own storage ("/memories/", ...). */
  virtualPrefixes: readonly string[];
  /** Folders readable without asking (loaded skills' own folders). */
  readRoots?: readonly string[];
};

/** One tool call, as the gate's procedure needs it. */
export type GateCallRequest = {
  call: HookedToolCall;
  /** The tool's presentation of the input: the paths it touches, the dialog's title and locations. */
  presentation: ToolPresentation;
  /** The call's tool context: where it runs (cwd, roots) and what a preview reads with. */
  context: ToolContext;
  signal: AbortSignal;
  /** The eval or task call this call runs under. */
  parentToolCallId?: string;
  /** A subagent's turn: the child session its permission requests belong to. */
  subagentSessionId?: string;
};

/** What the procedure says on the way; everything else it answers. */
export type GateReports = {
  /** Hooks' systemMessage lines. */
  systemMessages(messages: readonly string[] | undefined): void;
  /**
   * A user's rejection, said in the same tick the answer arrived: an editor that interrupts the
   * turn right after rejecting (its cancel is the next line) must see the call end failed, and after
   * the cancel nothing more may be sent for the turn.
   */
  rejected(request: GateCallRequest, message: string): void;
  /** A permission dialog is about to be shown (Notification hooks hear of it as `permission_prompt`). */
  asking(message: string): void;
  /** Something the user is told once (the files deciding what runs on the host are unknown). */
  warning?(message: string): void;
};

export type GateOutcome =
  /** `approved`: requested path -> the real path decided on; the backend opens exactly that. */
  | { action: "run"; approved: ApprovedTargets }
  | { action: "cancelled" }
  /** `reported`: the editor was already told the call failed (a rejection, see GateReports). */
  | { action: "refused"; message: string; reported: boolean };

export type ToolCallGate = {
  /** The procedure for one call (verdict, hooks, dialog, memory). */
  authorize(request: GateCallRequest): Promise<GateOutcome>;
};

type Ask = Extract<GateDecision, { action: "ask" }>;
type Refused = Extract<GateOutcome, { action: "refused" }>;
const refused = (message: string, reported = false): Refused => ({ action: "refused", message, reported });

/** The gate for one turn's calls: parallel calls run together but ask one at a time, at the door. */
export function createToolCallGate(settings: GateSettings, hooks: GateHooks, reports: GateReports): ToolCallGate {
  const door = "door" in settings ? settings.door : createDoor({ approver: settings.approver });

  async function authorize(request: GateCallRequest): Promise<GateOutcome> {
    const { call, context, signal } = request;
    const { tool } = call;
    const gated = await gateToolCall({
      tool,
      input: call.input,
      paths: request.presentation.paths ?? [],
      cwd: context.cwd,
      roots: context.roots,
      readRoots: settings.readRoots,
      virtualPrefixes: settings.virtualPrefixes,
      mode: settings.mode,
      memory: settings.memory,
      policy: settings.policy,
    });
    const unknown = settings.policy?.surfaces?.takeUnknownNotice();
    if (unknown) reports.warning?.(unknown);
    // Denied without asking hooks (a deny rule, plan mode, a remembered rejection).
    if (gated.decision.action === "deny") return refused(gated.decision.reason);

    const pre = await hooks.preToolUse?.(call, signal);
    reports.systemMessages(pre?.systemMessages);
    if (signal.aborted) return { action: "cancelled" };
    const decision = pre?.decision ? gated.withHook({ decision: pre.decision, reason: pre.reason }) : gated.decision;
    const allowed = async (): Promise<GateOutcome> => {
      if (tool.effect === "edit" || tool.effect === "delete")
        await forgetCommandsChangedBy(gated.targets, context.roots, settings.memory, settings.policy);
      return { action: "run", approved: gated.approved };
    };
    if (decision.action === "deny") return refused(decision.reason);
    if (decision.action === "allow") return allowed();
    const answer = await ask(request, decision, gated.previewable, gated.fingerprint);
    return answer === "allow" ? allowed() : answer;
  }

  /** The dialog at the door: a remembered answer, the PermissionRequest hook, the approver, in its turn. */
  async function ask(
    request: GateCallRequest,
    decision: Ask,
    previewable: boolean,
    fingerprint: CommandFingerprint | undefined,
  ): Promise<"allow" | { action: "cancelled" } | Refused> {
    const { call, signal } = request;
    let carriedOut: ReturnType<typeof answered> | undefined;
    const answer = await door.permission({
      signal,
      // A remembered choice may have been made while this call waited for the door (for a
      // command: with the same decisive files as this call saw).
      remembered: () => !!decision.alwaysKey && rememberedAllows(settings.memory, decision.alwaysKey, fingerprint),
      hook: async () => {
        const outcome = await hooks.permissionRequest?.(call, signal);
        reports.systemMessages(outcome?.systemMessages);
        return outcome;
      },
      request: async () => {
        const preview = await previewOf(request, previewable);
        reports.asking(`deep-acp needs your permission to use ${call.tool.hookName}`);
        return {
          toolCallId: call.toolCallId,
          toolName: call.tool.name,
          title: request.presentation.title,
          kind: call.tool.kind,
          rawInput: call.input,
          locations: request.presentation.locations ?? [],
          preview,
          reason: decision.reason,
          alwaysLabel: decision.alwaysKey ? decision.alwaysLabel : null,
          parentToolCallId: request.parentToolCallId,
          ...(request.subagentSessionId ? { subagentSessionId: request.subagentSessionId } : {}),
        };
      },
      answered: (outcome) => void (carriedOut = answered(request, decision, outcome, fingerprint)),
    });
    if (typeof answer === "string") return carriedOut ?? answered(request, decision, answer, fingerprint);
    if (answer.settled === "hook" && answer.decision === "deny")
      return refused(`Permission denied by hook: ${answer.message}`);
    return "allow";
  }

  /** Carries out the user's answer: remembers "always", says a rejection at once. */
  function answered(
    request: GateCallRequest,
    decision: Ask,
    outcome: ApprovalOutcome,
    fingerprint: CommandFingerprint | undefined,
  ): "allow" | { action: "cancelled" } | Refused {
    const toolName = request.call.tool.name;
    // A command's "always" is of what it runs now: kept with the fingerprint of its decisive files.
    const remember = (choice: "allow" | "deny") => {
      if (decision.alwaysKey)
        settings.memory.remember(decision.alwaysKey, choice, decision.alwaysLabel ?? decision.alwaysKey, fingerprint);
    };
    switch (outcome) {
      case "reject_once":
      case "reject_always": {
        const message = rejection(toolName, outcome);
        reports.rejected(request, message);
        if (outcome === "reject_always") remember("deny");
        return refused(message, true);
      }
      case "allow_once":
        return "allow";
      case "allow_always":
        remember("allow");
        return "allow";
      case "unattended":
        return refused(
          `This ${toolName} call needs approval (${decision.reason}) and this run cannot ask for it (headless, without --yes), so it was not run. No user rejected it. Do not retry it; finish what you can without it and say that rerunning with --yes would allow it.`,
        );
      case "cancelled":
        return { action: "cancelled" };
    }
  }

  return { authorize };
}

/** A preview of a file outside the project would be the very read the dialog asks about. */
async function previewOf(request: GateCallRequest, previewable: boolean): Promise<ToolDisplay[] | undefined> {
  if (!previewable) return undefined;
  try {
    return await request.call.tool.preview?.(request.call.input, request.context);
  } catch {
    return undefined;
  }
}

function rejection(toolName: string, outcome: "reject_once" | "reject_always"): string {
  return outcome === "reject_always"
    ? `The user rejected this ${toolName} call and asked not to be asked again. Do not retry it; continue another way or ask the user.`
    : `The user rejected this ${toolName} call. Do not retry it as is; adjust the approach or ask the user what they want.`;
}
