import type { RealTarget } from "../../backends/paths/real-path.js";
import { isWithin } from "../../backends/paths/real-path.js";
import type { CommandApproval } from "../commands/command-policy.js";
import type { HostExecutionSurfaces } from "../surfaces/host-surfaces.js";
import type { ProtectedPaths } from "../surfaces/protected-paths.js";
import { parseMcpHookToolName } from "../../hooks/tool-names.js";
import type { SessionMode } from "./modes.js";
import type { ToolEffect } from "../../tools/types.js";

// The decision itself: pure, synchronous, on real paths. Everything it needs is in the request
// (gate.ts gathers it); everything the caller needs comes back: allow, deny with the message the
// model sees, or ask with the exact dialog text and the exact key "always" would store.

export type GateDecision =
  | { action: "allow"; reason: string }
  | { action: "deny"; reason: string }
  | {
      action: "ask";
      /** What the dialog says the call does and why it asks. */
      reason: string;
      /** Key under which "always" choices are remembered; null when "always" is not offered. */
      alwaysKey: string | null;
      alwaysLabel: string | null;
    };

export type RememberedDecision = "allow" | "deny";

/**
 * The tool being called. `hookName` is the Claude-compatible name hook messages use (`Bash`,
 * `Eval`); `approvalId` keys remembered approvals when the name alone is not the identity (a
 * project MCP server's tool is bound to its source and definition).
 */
export type GateTool = {
  name: string;
  hookName?: string;
  approvalId?: string;
  effect: ToolEffect;
  /** What the call asks the user (ask_user), checked for secrets. */
  question?(input: never): { text: string; options?: readonly string[] };
};

/** A target as the gate sees it: a real path, or a path in one of the agent's own routes. */
export type GateTarget = RealTarget & {
  /** A route of the agent's own storage (/memories/, /large_tool_results/, ...): not a host path. */
  virtual?: boolean;
  /** A route shared beyond this project (/memories/): writes there count as outside. */
  shared?: boolean;
  /** Another name of this hard-linked file that a deny rule names (denied-names.ts), or why that cannot be ruled out. */
  deniedName?: { path: string } | { undetermined: string };
};

/** The user's file rules' verdict on the call (path-rules.ts); undefined = no opinion. */
export type RuleVerdict =
  | { action: "deny"; reason: string }
  | { action: "ask"; reason: string; alwaysKey: string | null; alwaysLabel: string | null };

export type HookVerdict = { decision: "allow" | "deny" | "ask"; reason?: string };

export type GateRequest = {
  tool: GateTool;
  mode: SessionMode;
  /** Real paths of the session roots. */
  roots: readonly string[];
  /** Real paths of folders readable without asking (loaded skills' own folders). */
  readRoots: readonly string[];
  targets: readonly GateTarget[];
  /** For `execute`: what "always" may cover (command-policy.ts). */
  command?: CommandApproval;
  /** For `execute`: why its remembered "always" no longer holds (command-fingerprint.ts), said in the dialog. */
  commandChanged?: string;
  /** For `network`: the host fetched from, when the input names one. */
  host?: string;
  protectedPaths: ProtectedPaths;
  /**
   * What decides what runs on the host, per root, as git and the protected list resolve it
   * (host-surfaces.ts); without it only the protected patterns count, on both the requested and
   * the real path.
   */
  hostSurfaces?: readonly HostExecutionSurfaces[];
  rules?: RuleVerdict;
  /** The PreToolUse hooks' verdict. */
  hook?: HookVerdict;
  /** Why the question this call asks the user asks for a secret (secret-question.ts): refused in every mode. */
  secretQuestion?: string;
  /** Remembered "always" choices. */
  remembered(key: string): RememberedDecision | undefined;
};

type Ask = Extract<GateDecision, { action: "ask" }> & { sticky?: boolean };

export function decide(request: GateRequest): GateDecision {
  const { tool, mode, rules, hook } = request;
  if (request.secretQuestion)
    return {
      action: "deny",
      reason: `Error: ${tool.name} never asks for passwords, keys, tokens or other secrets (${request.secretQuestion}). Tell the user where to configure the secret instead.`,
    };
  if (rules?.action === "deny") return { action: "deny", reason: `Error: ${rules.reason}` };
  if (hook?.decision === "deny")
    return {
      action: "deny",
      reason: `${tool.hookName ?? tool.name} blocked by hook: ${hook.reason ?? "no reason given"}`,
    };
  // Bypass only skips our own dialogs; deny rules and hooks (a hook's "ask" too) still apply.
  if (mode === "bypass") {
    if (hook?.decision === "ask")
      return {
        action: "ask",
        reason: hook.reason ?? "a hook asked for confirmation",
        alwaysKey: null,
        alwaysLabel: null,
      };
    return { action: "allow", reason: "bypass mode" };
  }

  const base = byMode(request);
  if (base.action === "deny") return { action: "deny", reason: `Error: ${tool.name} is not available: ${base.reason}` };
  let decision: { action: "allow"; reason: string } | Ask = base as { action: "allow"; reason: string } | Ask;
  // A file rule that asks wins over a mode that would allow, and a hook's "allow" does not lift it.
  if (rules?.action === "ask" && !(decision.action === "ask" && decision.sticky)) decision = { ...rules, sticky: true };
  if (hook?.decision === "ask" && decision.action === "allow") {
    decision = ask(hook.reason ?? "a hook asked for confirmation", null, null);
  }
  if (hook?.decision === "allow" && decision.action === "ask" && !decision.sticky)
    return { action: "allow", reason: "allowed by a hook" };
  if (decision.action === "allow") return decision;

  const { sticky: _sticky, ...asking } = decision;
  if (asking.alwaysKey) {
    const remembered = request.remembered(asking.alwaysKey);
    if (remembered === "allow")
      return { action: "allow", reason: `remembered: ${asking.alwaysLabel ?? asking.alwaysKey}` };
    if (remembered === "deny") {
      return {
        action: "deny",
        reason: `The user has denied ${tool.name} for this (remembered choice: ${asking.alwaysLabel ?? asking.alwaysKey}).`,
      };
    }
  }
  return asking;
}

/** What the mode and the call's effect say, before rules, hooks and remembered choices. */
function byMode(request: GateRequest): GateDecision | Ask {
  const { tool, mode } = request;
  switch (tool.effect) {
    case "none":
      return { action: "allow", reason: "no side effects" };
    case "read":
      return decideRead(request);
    case "edit":
    case "delete":
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      return decideChange(request);
    case "execute": {
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      const command = request.command;
      const why = request.commandChanged ? `runs a shell command; ${request.commandChanged}` : "runs a shell command";
      return command?.key ? ask(why, command.key, command.label) : ask(why, null, null);
    }
    case "network": {
      // Fetching changes nothing locally, so plan mode offers it too; every new host still asks.
      const host = request.host;
      return host
        ? ask(`fetches from ${host}`, `fetch:${host}`, `Always allow fetching from ${host}`)
        : ask("fetches from the network", null, null);
    }
    case "external":
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      return tool.name === "eval"
        ? ask("runs code that can call tools with side effects", null, null)
        : ask("calls a tool with side effects", `tool:${tool.approvalId ?? tool.name}`, externalToolLabel(tool));
  }
}

function decideRead(request: GateRequest): GateDecision | Ask {
  const { targets } = request;
  const readable = [...request.roots, ...request.readRoots];
  for (const target of targets) {
    if (target.virtual) continue;
    if (target.unresolved)
      return ask(`reads ${named(target)}, which cannot be resolved (${target.unresolved})`, null, null, true);
    if (!inside(target.real, readable)) {
      // One key for every read tool: "reading X" is what the user allows, whichever tool reads it.
      return ask(
        `reads ${named(target)}, outside the project`,
        `read:outside:${target.real}`,
        target.isDirectory
          ? `Always allow listing and searching ${target.real}`
          : `Always allow reading ${target.real}`,
      );
    }
    if (target.hardLinks > 1) return ask(hardLinkReason("reads", target), null, null, true);
  }
  return { action: "allow", reason: "read inside the project" };
}

function decideChange(request: GateRequest): GateDecision | Ask {
  const { tool, targets, mode, roots } = request;
  const verb = tool.effect === "delete" ? "deletes" : "changes";
  let inProject: Ask | undefined;
  for (const target of targets) {
    if (target.virtual && !target.shared) continue;
    if (target.unresolved)
      return ask(`${verb} ${named(target)}, which cannot be resolved (${target.unresolved})`, null, null, true);
    const recursive = tool.effect === "delete" && target.isDirectory;
    if (target.shared || !inside(target.real, roots)) {
      const where = target.shared ? "shared by every project" : "outside the project";
      if (recursive) return ask(`deletes the folder ${named(target)} and everything in it, ${where}`, null, null, true);
      const deleting = tool.effect === "delete";
      return ask(
        `${verb} ${named(target)}, ${where}`,
        `${deleting ? "delete" : "edit"}:outside:${target.real}`,
        `Always allow ${deleting ? "deleting" : "changing"} ${target.real}`,
      );
    }
    const guarded = decidesWhatRuns(request, target);
    if (guarded)
      return ask(`${verb} ${named(target)}, which decides what runs on the host: ${guarded}`, null, null, true);
    if (target.hardLinks > 1 && tool.effect !== "delete") return ask(hardLinkReason(verb, target), null, null, true);
    if (recursive) inProject ??= ask(`deletes the folder ${named(target)} and everything in it`, null, null);
  }
  if (inProject) return inProject;
  if (tool.effect === "delete")
    return ask("deletes a file", "tool:delete:inside", "Always allow deleting files in this project");
  if (mode === "accept-edits") return { action: "allow", reason: "accept-edits mode" };
  // One key for write_file and edit_file: "edits in this project" is what the label allows.
  return ask("edits a file", "edit:inside", "Always allow edits in this project");
}

/**
 * Why a change to `target` decides what runs on the host, or undefined: a path git or the protected
 * list resolves (by the path as asked for and by its real path, so `.git -> store/` and `store/`
 * itself both count), else a protected pattern on either path.
 */
function decidesWhatRuns(request: GateRequest, target: GateTarget): string | undefined {
  for (const surfaces of request.hostSurfaces ?? []) {
    const hit = surfaces.match(target.requested) ?? surfaces.match(target.real);
    if (hit) return hit.reason;
  }
  const pattern =
    request.protectedPaths.match(target.real, request.roots) ??
    request.protectedPaths.match(target.requested, request.roots);
  return pattern ? `a protected path (${pattern})` : undefined;
}

/** "Always allow `create_issue` from the MCP server `github`": the tool as the user configured it. */
function externalToolLabel(tool: GateTool): string {
  const mcp = parseMcpHookToolName(tool.hookName ?? "");
  return mcp
    ? `Always allow \`${mcp.tool}\` from the MCP server \`${mcp.server}\``
    : `Always allow the tool \`${tool.name}\``;
}

function ask(reason: string, alwaysKey: string | null, alwaysLabel: string | null, sticky = false): Ask {
  return { action: "ask", reason, alwaysKey, alwaysLabel, ...(sticky ? { sticky } : {}) };
}

function inside(real: string, roots: readonly string[]): boolean {
  return roots.some((root) => isWithin(real, root));
}

/** The target as the dialog names it: the real path, and the path asked for when a link led there. */
export function named(target: GateTarget): string {
  return target.real === target.requested ? target.real : `${target.real} (through the link ${target.requested})`;
}

function hardLinkReason(verb: string, target: GateTarget): string {
  return `${verb} ${named(target)}, which has ${target.hardLinks} hard links: the same file may live outside the project`;
}
