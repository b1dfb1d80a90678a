import type { ReviewAsker } from "../../gate/seams/through-door.js";
import type { DeepAcpConfig } from "../../config/config-file.js";
import type { HookEngine } from "../../hooks/index.js";
import type { PersistentApprovalMemory } from "../../gate/memory/approval-memory.js";
import { createHookBridge } from "../../turn/index.js";
import type { SessionEventSink } from "../services.js";
import type { ApplyReport } from "./container-changes.js";
import type { Workspace } from "./workspace.js";

// A session's /changes and /apply: asked of the place (a copy-mode container has changes; the host's
// files have none to apply).

const HOST_FILES = "This session works on the host's files; there is nothing to apply.";

/** `/changes`: what the session changed in its place's copy of the project and has not applied. */
export async function describeWorkspaceChanges(workspace: Workspace, config: DeepAcpConfig): Promise<string> {
  return (await workspace.place.changes?.describe(config)) ?? HOST_FILES;
}

export type ApplyTurn = {
  workspace: Workspace;
  config: DeepAcpConfig;
  signal: AbortSignal;
  sink: SessionEventSink;
  hooks: () => Promise<HookEngine>;
  approvals: PersistentApprovalMemory;
  /** The session's door; undefined: no dialogs (headless), the ordinary changes only. */
  door: ReviewAsker | undefined;
};

export type ApplyOutcome = ApplyReport & { stopReason: "end_turn" | "cancelled" };

/** Nothing applied (fresh lists each time): the report of an /apply that had nothing to do or was cancelled. */
export const nothingApplied = () => ({ applied: [], skipped: [], conflicts: [], failed: [] });

/** `/apply`: writes the place's changes to the host project, after the editor's dialogs. */
export async function applyWorkspaceChanges(turn: ApplyTurn): Promise<ApplyOutcome> {
  const { workspace, config, signal } = turn;
  const changes = workspace.place.changes;
  if (!changes) return { ...nothingApplied(), text: HOST_FILES, stopReason: "end_turn" };
  const hooks = await turn.hooks();
  const report = await changes.apply({
    config,
    signal,
    events: turn.sink,
    // Like any write: file rules, PreToolUse and PermissionRequest hooks, remembered choices.
    gate: { memory: turn.approvals, hooks: createHookBridge(() => hooks), rules: workspace.rules },
    ...(turn.door ? { door: turn.door } : {}),
  });
  return { ...report, stopReason: signal.aborted ? "cancelled" : "end_turn" };
}
