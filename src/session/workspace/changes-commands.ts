import type { Approver } from "../../gate/call/approver.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { HookEngine } from "../../hooks/index.js";
import type { PersistentApprovalMemory } from "../../gate/memory/approval-memory.js";
import { createHookBridge } from "../../turn/index.js";
import type { SessionEventSink } from "../services.js";
import type { ApplyReport } from "./container-changes.js";
import type { Workspace } from "./workspace.js";

// A session's /changes and /apply: container-changes.ts does the work and is loaded only when used.

const HOST_FILES = "This session works on the host's files; there is nothing to apply.";

/** `/changes`: what the session changed in its copy-mode container and has not applied. */
export async function describeWorkspaceChanges(workspace: Workspace, config: DeepAcpConfig): Promise<string> {
  if (!workspace.container) return HOST_FILES;
  const { describeChanges, listContainerChanges } = await import("./container-changes.js");
  const listed = await listContainerChanges(workspace.container.workspace, config);
  return "error" in listed ? listed.error : describeChanges(workspace.container.workspace, listed);
}

export type ApplyTurn = {
  workspace: Workspace;
  config: DeepAcpConfig;
  signal: AbortSignal;
  sink: SessionEventSink;
  hooks: () => Promise<HookEngine>;
  approvals: PersistentApprovalMemory;
  /** Undefined: no dialogs (headless), the ordinary changes only. */
  approver: Approver | undefined;
};

export type ApplyOutcome = ApplyReport & { stopReason: "end_turn" | "cancelled" };

/** Nothing applied (fresh lists each time): the report of an /apply that had nothing to do or was cancelled. */
export const nothingApplied = () => ({ applied: [], skipped: [], conflicts: [], failed: [] });

/** `/apply`: writes the container's changes to the host project, after the editor's dialogs. */
export async function applyWorkspaceChanges(turn: ApplyTurn): Promise<ApplyOutcome> {
  const { workspace, config, signal } = turn;
  if (!workspace.container) return { ...nothingApplied(), text: HOST_FILES, stopReason: "end_turn" };
  const { applyContainerChanges } = await import("./container-changes.js");
  const hooks = await turn.hooks();
  const report = await applyContainerChanges({
    workspace: workspace.container.workspace,
    config,
    signal,
    events: turn.sink,
    // Like any write: file rules, PreToolUse and PermissionRequest hooks, remembered choices.
    gate: { memory: turn.approvals, hooks: createHookBridge(() => hooks), rules: workspace.rules },
    ...(turn.approver ? { approver: turn.approver } : {}),
  });
  return { ...report, stopReason: signal.aborted ? "cancelled" : "end_turn" };
}
