import { HOOK_EVENTS, type HookEventName } from "./events.js";
import type { HookCommandResult } from "./runner.js";
import type { HookDiagnostic, HookDiagnosticCode, PermissionDecision, PermissionRequestDecision } from "./types.js";

// Turns one handler's exit code and output into a verdict. Claude Code's rules: exit 0 parses stdout
// as JSON, exit 2 blocks with stderr as the reason, anything else only produces a diagnostic.
// Fields we cannot honour are reported, and a decision that depended on them is dropped rather
// than applied with a different meaning.

export const DEFAULT_BLOCK_REASON = "Hook blocked the operation";

/** One handler's contribution, before reduction. */
export type HookVerdict = {
  continue: boolean;
  stopReason?: string;
  systemMessage?: string;
  /** Exit 2 or `decision: "block"` on an event that can be blocked or fed back. */
  block?: { reason: string };
  additionalContext: string[];
  permission?: { decision: PermissionDecision; reason?: string };
  permissionRequest?: PermissionRequestDecision;
  diagnostics: HookDiagnostic[];
};

export type InterpretContext = {
  event: HookEventName;
  /** hooks.json path, for diagnostics. */
  file: string;
  /** The command's label, for diagnostics. */
  hook: string;
  timeoutSec: number;
};

const TOP_LEVEL_FIELDS = new Set([
  "continue",
  "stopReason",
  "suppressOutput",
  "systemMessage",
  "decision",
  "reason",
  "hookSpecificOutput",
]);
const UNSUPPORTED_TOP_LEVEL = new Set(["terminalSequence"]);

/** Per event: hookSpecificOutput fields we apply, and known Claude Code fields we do not. */
const SPECIFIC_FIELDS: Record<HookEventName, { supported: string[]; unsupported: string[] }> = {
  SessionStart: {
    supported: ["additionalContext"],
    unsupported: ["initialUserMessage", "sessionTitle", "watchPaths", "reloadSkills"],
  },
  UserPromptSubmit: { supported: ["additionalContext"], unsupported: ["sessionTitle", "suppressOriginalPrompt"] },
  SessionEnd: { supported: [], unsupported: [] },
  PermissionRequest: { supported: ["decision"], unsupported: [] },
  Notification: { supported: [], unsupported: [] },
  PreToolUse: {
    supported: ["permissionDecision", "permissionDecisionReason", "additionalContext"],
    unsupported: ["updatedInput"],
  },
  PostToolUse: { supported: ["additionalContext"], unsupported: ["updatedMCPToolOutput", "updatedToolOutput"] },
  PostToolUseFailure: { supported: ["additionalContext"], unsupported: [] },
  PreCompact: { supported: [], unsupported: [] },
  Stop: { supported: ["additionalContext"], unsupported: [] },
  SubagentStart: { supported: ["additionalContext"], unsupported: [] },
  SubagentStop: { supported: ["additionalContext"], unsupported: [] },
};

export function interpretHookResult(result: HookCommandResult, ctx: InterpretContext): HookVerdict {
  const verdict: HookVerdict = { continue: true, additionalContext: [], diagnostics: [] };
  const diag = (code: HookDiagnosticCode, message: string, severity: HookDiagnostic["severity"] = "warning") =>
    verdict.diagnostics.push({ severity, source: ctx.file, code, event: ctx.event, hook: ctx.hook, message });

  if (result.spawnError !== undefined) {
    diag("spawn_failed", `could not start: ${result.spawnError}`, "error");
    return verdict;
  }
  if (result.cancelled) {
    diag("cancelled", "killed because the turn was cancelled", "info");
    return verdict;
  }
  if (result.timedOut) {
    diag("timeout", `timed out after ${ctx.timeoutSec}s and was killed; its result was ignored`);
    return verdict;
  }
  if (result.stdoutTruncated) diag("output_truncated", `stdout exceeded the output cap and was truncated`);
  if (result.stderrTruncated) diag("output_truncated", `stderr exceeded the output cap and was truncated`);

  if (result.exitCode === 2) {
    applyBlock(verdict, result.stderr.trim() || DEFAULT_BLOCK_REASON, ctx, diag);
    return verdict;
  }
  if (result.exitCode !== 0) {
    const how =
      result.exitCode === null ? `was killed by ${result.signal ?? "a signal"}` : `exited with code ${result.exitCode}`;
    const stderr = excerpt(result.stderr);
    diag("nonzero_exit", `${how}; ignored${stderr ? `: ${stderr}` : ""}`);
    return verdict;
  }

  const stdout = result.stdout.trim();
  if (stdout === "") return verdict;
  const parsed = parseJsonObject(stdout);
  if (parsed === undefined) {
    if (stdout.startsWith("{"))
      diag("invalid_output", `stdout starts with "{" but is not valid JSON; treated as plain text`);
    if (HOOK_EVENTS[ctx.event].plainStdoutIsContext) verdict.additionalContext.push(stdout);
    else diag("plain_output_ignored", `plain stdout is ignored for ${ctx.event}: ${excerpt(stdout)}`, "info");
    return verdict;
  }
  applyJsonOutput(verdict, parsed, ctx, diag);
  return verdict;
}

type Diag = (code: HookDiagnosticCode, message: string, severity?: HookDiagnostic["severity"]) => void;

function applyBlock(verdict: HookVerdict, reason: string, ctx: InterpretContext, diag: Diag): void {
  switch (ctx.event) {
    case "PreToolUse":
      verdict.permission = mostRestrictive(verdict.permission, { decision: "deny", reason });
      return;
    case "PermissionRequest":
      verdict.permissionRequest = { behavior: "deny", message: reason };
      return;
    default:
      if (HOOK_EVENTS[ctx.event].blockPolicy === "diagnose") {
        diag("block_ignored", `${ctx.event} cannot be blocked; reason: ${excerpt(reason)}`);
        return;
      }
      verdict.block = { reason };
  }
}

function applyJsonOutput(verdict: HookVerdict, out: Record<string, unknown>, ctx: InterpretContext, diag: Diag): void {
  const str = (key: string): string | undefined => {
    const value = out[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string") return value;
    diag("invalid_output", `"${key}" must be a string; ignored`);
    return undefined;
  };

  if (out.continue !== undefined) {
    if (typeof out.continue === "boolean") verdict.continue = out.continue;
    else diag("invalid_output", `"continue" must be a boolean; ignored`);
  }
  const stopReason = str("stopReason");
  if (stopReason !== undefined) verdict.stopReason = stopReason;
  const systemMessage = str("systemMessage");
  if (systemMessage !== undefined && systemMessage.trim() !== "") verdict.systemMessage = systemMessage;
  if (out.suppressOutput !== undefined && typeof out.suppressOutput !== "boolean") {
    diag("invalid_output", `"suppressOutput" must be a boolean; ignored`);
  }
  const reason = str("reason");

  if (out.decision !== undefined && out.decision !== null) {
    if (out.decision === "block") applyBlock(verdict, reason?.trim() || DEFAULT_BLOCK_REASON, ctx, diag);
    else if (out.decision === "approve" && ctx.event === "PreToolUse") {
      // Claude Code's deprecated spelling of permissionDecision "allow".
      verdict.permission = mostRestrictive(
        verdict.permission,
        reason ? { decision: "allow", reason } : { decision: "allow" },
      );
    } else diag("invalid_output", `"decision" ${JSON.stringify(out.decision)} is not valid for ${ctx.event}; ignored`);
  }

  for (const key of Object.keys(out)) {
    if (TOP_LEVEL_FIELDS.has(key)) continue;
    if (UNSUPPORTED_TOP_LEVEL.has(key)) diag("unsupported_field", `"${key}" is not supported; ignored`);
    else diag("unknown_field", `unknown output field "${key}" ignored`, "info");
  }

  const specific = out.hookSpecificOutput;
  if (specific === undefined || specific === null) return;
  if (!isRecord(specific)) {
    diag("invalid_output", `"hookSpecificOutput" must be an object; ignored`);
    return;
  }
  if (specific.hookEventName !== ctx.event) {
    diag(
      "event_mismatch",
      `hookSpecificOutput.hookEventName is ${JSON.stringify(specific.hookEventName)}, not "${ctx.event}"; hookSpecificOutput ignored`,
    );
    return;
  }
  applySpecificOutput(verdict, specific, ctx, diag);
}

function applySpecificOutput(
  verdict: HookVerdict,
  specific: Record<string, unknown>,
  ctx: InterpretContext,
  diag: Diag,
): void {
  const fields = SPECIFIC_FIELDS[ctx.event];
  for (const key of Object.keys(specific)) {
    if (key === "hookEventName" || fields.supported.includes(key)) continue;
    if (fields.unsupported.includes(key)) continue;
    diag("unknown_field", `hookSpecificOutput.${key} is not a ${ctx.event} field; ignored`, "info");
  }
  for (const key of fields.unsupported) {
    if (specific[key] !== undefined && key !== "updatedInput")
      diag("unsupported_field", `hookSpecificOutput.${key} is not supported; ignored`);
  }

  if (fields.supported.includes("additionalContext") && specific.additionalContext !== undefined) {
    if (typeof specific.additionalContext === "string") {
      if (specific.additionalContext.trim() !== "") verdict.additionalContext.push(specific.additionalContext);
    } else diag("invalid_output", `hookSpecificOutput.additionalContext must be a string; ignored`);
  }

  if (ctx.event === "PreToolUse") applyPreToolUse(verdict, specific, diag);
  if (ctx.event === "PermissionRequest") applyPermissionRequest(verdict, specific.decision, diag);
}

function applyPreToolUse(verdict: HookVerdict, specific: Record<string, unknown>, diag: Diag): void {
  const raw = specific.permissionDecision;
  let reason: string | undefined;
  if (specific.permissionDecisionReason !== undefined) {
    if (typeof specific.permissionDecisionReason === "string") reason = specific.permissionDecisionReason;
    else diag("invalid_output", `hookSpecificOutput.permissionDecisionReason must be a string; ignored`);
  }
  if (raw === undefined || raw === null) {
    if (specific.updatedInput !== undefined)
      diag("unsupported_field", `hookSpecificOutput.updatedInput is not supported; ignored`);
    return;
  }
  if (raw === "defer") {
    diag("unsupported_field", `permissionDecision "defer" is not supported; ignored`);
    return;
  }
  if (raw !== "allow" && raw !== "deny" && raw !== "ask") {
    diag("invalid_output", `permissionDecision ${JSON.stringify(raw)} is not allow, deny or ask; ignored`);
    return;
  }
  if (specific.updatedInput !== undefined && raw !== "deny") {
    // The hook approved a modified call we will not make; running the original would change its meaning.
    diag("unsupported_field", `hookSpecificOutput.updatedInput is not supported, so its "${raw}" decision was dropped`);
    return;
  }
  if (specific.updatedInput !== undefined)
    diag("unsupported_field", `hookSpecificOutput.updatedInput is not supported; ignored`);
  verdict.permission = mostRestrictive(
    verdict.permission,
    reason !== undefined ? { decision: raw, reason } : { decision: raw },
  );
}

function applyPermissionRequest(verdict: HookVerdict, raw: unknown, diag: Diag): void {
  if (raw === undefined || raw === null) return;
  if (!isRecord(raw) || (raw.behavior !== "allow" && raw.behavior !== "deny")) {
    diag("invalid_output", `hookSpecificOutput.decision must be {"behavior": "allow" | "deny", ...}; ignored`);
    return;
  }
  if (raw.behavior === "allow") {
    if (raw.updatedInput !== undefined) {
      diag("unsupported_field", `decision.updatedInput is not supported, so the "allow" was dropped`);
      return;
    }
    if (raw.updatedPermissions !== undefined)
      diag("unsupported_field", `decision.updatedPermissions is not supported; allowed once only`);
    if (verdict.permissionRequest?.behavior !== "deny") verdict.permissionRequest = { behavior: "allow" };
    return;
  }
  const decision: PermissionRequestDecision = { behavior: "deny" };
  if (typeof raw.message === "string" && raw.message.trim() !== "") decision.message = raw.message;
  if (raw.interrupt === true) decision.interrupt = true;
  verdict.permissionRequest = decision;
}

const PERMISSION_RANK: Record<PermissionDecision, number> = { allow: 1, ask: 2, deny: 3 };

export function permissionRank(decision: PermissionDecision | undefined): number {
  return decision === undefined ? 0 : PERMISSION_RANK[decision];
}

function mostRestrictive<T extends { decision: PermissionDecision }>(current: T | undefined, next: T): T {
  return current && permissionRank(current.decision) >= permissionRank(next.decision) ? current : next;
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function excerpt(text: string, max = 500): string {
  const oneLine = text.trim().replace(/\s*\n\s*/g, " ⏎ ");
  return oneLine.length > max ? `${oneLine.slice(0, max)}…` : oneLine;
}
