import { checkToolPath, decideDeleteAccess, permissionDeniedMessage, type CompiledFileRules } from "./file-rules.js";
import type { ToolEffect } from "../../tools/types.js";
import type { GateTarget, RuleVerdict } from "../decide/decide.js";

// The user's file rules (config.toml [[permissions]]) as the gate applies them: on the real path of
// every target and on the path as asked for, so neither a link into a denied folder nor a link
// named like an allowed one gets around a rule, and a hard link (another name of the same device
// and inode) of a denied file is denied too (denied-names.ts). Shell commands are never path-checked, so when
// rules exist and commands are not sandboxed, every command asks and "always" is not offered.

export function checkFileRules(
  rules: CompiledFileRules,
  sandboxed: boolean,
  effect: ToolEffect,
  targets: readonly GateTarget[],
): RuleVerdict | undefined {
  if (rules.rules.length === 0) return undefined;
  if (effect === "execute") {
    return sandboxed
      ? undefined
      : {
          action: "ask",
          reason: "runs a shell command, which your file rules cannot check",
          alwaysKey: null,
          alwaysLabel: null,
        };
  }
  const op = effect === "read" ? "read" : effect === "edit" || effect === "delete" ? "write" : undefined;
  if (!op) return undefined;
  let asks: string | undefined;
  for (const target of targets) {
    if (target.virtual) continue;
    const other = target.deniedName;
    if (other && "undetermined" in other)
      return {
        action: "deny",
        reason: `${target.real} has ${target.hardLinks} hard links and ${other.undetermined}, so it cannot be shown not to be a denied file`,
      };
    if (other)
      return {
        action: "deny",
        reason: `${target.real} is another name (a hard link) of ${other.path}: ${permissionDeniedMessage(op, other.path)}`,
      };
    for (const path of new Set([target.real, target.requested])) {
      if (effect === "delete") {
        const decision = decideDeleteAccess(rules, path, { isDirectory: target.isDirectory });
        if (decision.decision === "deny")
          return { action: "deny", reason: decision.error ?? `permission denied for write on ${path}` };
        if (decision.decision === "ask") asks ??= target.real;
        continue;
      }
      const check = checkToolPath(rules, op, path);
      if (!check.ok) return { action: "deny", reason: check.error };
      if (check.decision === "ask") asks ??= target.real;
    }
  }
  if (!asks) return undefined;
  return {
    action: "ask",
    reason: `your file rules ask before ${op === "read" ? "reading" : "changing"} ${asks}`,
    alwaysKey: `rule:${op}:${asks}`,
    alwaysLabel: `Always allow ${op === "read" ? "reading" : "changing"} ${asks}`,
  };
}
