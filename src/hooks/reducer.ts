import type { HookEventName } from "./events.js";
import { permissionRank, type HookVerdict } from "./interpret.js";
import type { HookDiagnostic, HookRunOutcome, PermissionRequestDecision, ReducedHookResult } from "./types.js";

/**
 * Folds verdicts given in precedence order (project, user, plugin; config order within each).
 * Order only breaks ties: every handler has already run, so a project deny does not mean a user
 * hook's side effects did not happen.
 */
export function reduceHookVerdicts(
  event: HookEventName,
  verdicts: readonly HookVerdict[],
  extra: { outcomes?: HookRunOutcome[]; diagnostics?: HookDiagnostic[]; cancelled?: boolean } = {},
): ReducedHookResult {
  const result: ReducedHookResult = {
    event,
    handlerCount: verdicts.length,
    blocked: false,
    continue: true,
    systemMessages: [],
    additionalContext: [],
    cancelled: extra.cancelled ?? false,
    diagnostics: [...(extra.diagnostics ?? [])],
    outcomes: extra.outcomes ?? [],
  };
  for (const verdict of verdicts) result.diagnostics.push(...verdict.diagnostics);
  if (result.cancelled) return result;

  const blockReasons: string[] = [];
  for (const verdict of verdicts) {
    if (!verdict.continue) result.continue = false;
    if (result.stopReason === undefined && verdict.stopReason !== undefined) result.stopReason = verdict.stopReason;
    if (verdict.systemMessage !== undefined) result.systemMessages.push(verdict.systemMessage);
    result.additionalContext.push(...verdict.additionalContext);
    if (verdict.block) blockReasons.push(verdict.block.reason);
  }

  if (event === "PreToolUse") {
    let best = 0;
    for (const verdict of verdicts) best = Math.max(best, permissionRank(verdict.permission?.decision));
    const winners = verdicts.filter((v) => v.permission && permissionRank(v.permission.decision) === best);
    if (best > 0) {
      result.permissionDecision = winners[0]!.permission!.decision;
      result.reason = joinReasons(winners.map((v) => v.permission!.reason));
      result.blocked = result.permissionDecision === "deny";
    }
    return result;
  }

  if (event === "PermissionRequest") {
    const denies = verdicts
      .map((v) => v.permissionRequest)
      .filter((d): d is PermissionRequestDecision => d?.behavior === "deny");
    if (denies.length > 0) {
      const decision: PermissionRequestDecision = { behavior: "deny" };
      const message = joinReasons(denies.map((d) => d.message));
      if (message !== undefined) decision.message = message;
      if (denies.some((d) => d.interrupt)) decision.interrupt = true;
      result.permissionRequestDecision = decision;
      result.blocked = true;
      if (message !== undefined) result.reason = message;
    } else if (verdicts.some((v) => v.permissionRequest?.behavior === "allow")) {
      result.permissionRequestDecision = { behavior: "allow" };
    }
    return result;
  }

  if (blockReasons.length > 0) {
    result.blocked = true;
    result.reason = joinReasons(blockReasons);
  }
  return result;
}

function joinReasons(reasons: readonly (string | undefined)[]): string | undefined {
  const kept = reasons.filter((r): r is string => r !== undefined && r.trim() !== "").map((r) => r.trim());
  return kept.length > 0 ? kept.join("\n\n") : undefined;
}
