import { join } from "node:path";
import { forgetCommandsChangedBy, gateToolCall } from "../call/gate.js";
import type { GateHooks, HookedToolCall } from "../call/hooks.js";
import type { ApprovalMemory } from "../memory/approval-memory.js";
import type { CompiledFileRules } from "../rules/file-rules.js";
import type { GateTarget } from "../decide/decide.js";
import { looksBinary } from "../../backends/files/mime.js";
import { createDeleteTool } from "../../tools/files/delete.js";
import { createWriteFileTool } from "../../tools/files/write-file.js";

// /apply's changes go through the gate's procedure as the file tools' writes do: each file is a
// `Write` (or `Delete`) of its host path, decided on real paths against the file rules and the
// remembered rejections, then shown to the PreToolUse hooks; a deny from either skips that file. A
// PermissionRequest hook may answer for a file before the dialog (allow: no dialog needed for it;
// deny: skipped). After a write, remembered command approvals that read the file are dropped, as
// after any allowed edit. A hook's "allow" at PreToolUse does not skip the dialog: /apply's dialog is
// the review the user asked for.

export type ApplyGateOptions = {
  memory: ApprovalMemory;
  hooks?: GateHooks;
  rules?: CompiledFileRules;
};

const WRITE = createWriteFileTool();
const DELETE = createDeleteTool();
/** Hooks get the text of a file up to this size (as a Write's `content`); larger or binary files: their path only. */
const HOOK_CONTENT_BYTES = 1024 * 1024;

export type Screened = { refused?: string; targets: GateTarget[]; call: HookedToolCall };

/** One change of /apply: a path relative to the host root, deleted or written (with its snapshot, or a link). */
export type ApplyChange = { path: string; deleted: boolean; data?: Buffer; linkTarget?: string };

function callOf(hostRoot: string, change: ApplyChange, toolCallId: string): HookedToolCall {
  const file_path = join(hostRoot, change.path);
  if (change.deleted) return { toolCallId, tool: DELETE, input: { file_path } };
  const data = change.data;
  const text = data && data.length <= HOOK_CONTENT_BYTES && !looksBinary(data) ? data.toString("utf8") : undefined;
  const content = change.linkTarget !== undefined ? `(link to ${change.linkTarget})` : (text ?? "");
  return { toolCallId, tool: WRITE, input: { file_path, content } };
}

/** The file rules and PreToolUse hooks for one change. */
export async function screenApplyChange(
  options: ApplyGateOptions,
  hostRoot: string,
  change: ApplyChange,
  toolCallId: string,
  signal: AbortSignal,
): Promise<Screened> {
  const call = callOf(hostRoot, change, toolCallId);
  const path = (call.input as { file_path: string }).file_path;
  const gated = await gateToolCall({
    tool: call.tool,
    input: call.input,
    paths: [path],
    cwd: hostRoot,
    roots: [hostRoot],
    virtualPrefixes: [],
    mode: "default",
    memory: options.memory,
    policy: options.rules ? { rules: options.rules } : {},
  });
  if (gated.decision.action === "deny") return { refused: gated.decision.reason, targets: gated.targets, call };
  const pre = await options.hooks?.preToolUse?.(call, signal);
  if (pre?.decision === "deny")
    return {
      refused: `blocked by a PreToolUse hook: ${pre.reason ?? "no reason given"}`,
      targets: gated.targets,
      call,
    };
  return { targets: gated.targets, call };
}

/** The PermissionRequest hooks' answer for one change, asked before its dialog. */
export async function applyPermissionHook(
  options: ApplyGateOptions,
  screened: Screened,
  signal: AbortSignal,
): Promise<"allow" | { refused: string } | undefined> {
  const answer = await options.hooks?.permissionRequest?.(screened.call, signal);
  if (answer?.decision === "allow") return "allow";
  if (answer?.decision === "deny")
    return { refused: `denied by a PermissionRequest hook: ${answer.message ?? "no reason given"}` };
  return undefined;
}

/** After a write: remembered commands whose program reads that file ask again. */
export async function afterApplyWrite(options: ApplyGateOptions, hostRoot: string, screened: Screened): Promise<void> {
  await forgetCommandsChangedBy(screened.targets, [hostRoot], options.memory);
}
