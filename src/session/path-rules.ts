import type { GateDecision } from "../agent/approval-policy.js";
import type { PathRuleCheck } from "../agent/tool-runner.js";
import { checkToolPath, decideDeleteAccess, type CompiledFileRules } from "../permissions/file-rules.js";
import { statSync } from "node:fs";

/**
 * The approval gate's view of the user's file rules: a call whose paths a rule denies fails before
 * anything runs, and one a rule marks `ask` shows the dialog. Shell commands are never path-checked,
 * so when rules exist and commands are not sandboxed, every command asks and "always" is not offered.
 */
export function createPathRuleCheck(rules: CompiledFileRules, sandboxed: boolean): PathRuleCheck | undefined {
  if (rules.rules.length === 0) return undefined;
  return (tool, presentation): GateDecision | undefined => {
    if (tool.effect === "execute") {
      return sandboxed ? undefined : { action: "ask", reason: "runs a shell command, which your file rules cannot check", alwaysKey: null, alwaysLabel: null };
    }
    const op = tool.effect === "read" ? "read" : tool.effect === "edit" || tool.effect === "delete" ? "write" : undefined;
    if (!op) return undefined;
    let asks: string | undefined;
    for (const path of presentation.paths ?? []) {
      if (tool.effect === "delete") {
        const decision = decideDeleteAccess(rules, path, { isDirectory: isDirectory(path) });
        if (decision.decision === "deny") return { action: "deny", reason: decision.error ?? `permission denied for write on ${path}` };
        if (decision.decision === "ask") asks ??= path;
        continue;
      }
      const check = checkToolPath(rules, op, path);
      if (!check.ok) return { action: "deny", reason: check.error };
      if (check.decision === "ask") asks ??= path;
    }
    return asks ? { action: "ask", reason: `your file rules ask before ${op === "read" ? "reading" : "changing"} ${asks}`, alwaysKey: `rule:${op}:${asks}`, alwaysLabel: `Always allow ${op} of ${asks}` } : undefined;
  };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
