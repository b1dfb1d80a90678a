import type { AnyTool, ToolPresentation } from "../tools/types.js";
import { isInsideRoots } from "../tools/paths.js";
import { fetchHost } from "../tools/web-fetch.js";
import { commandPrefix } from "./command-prefix.js";
import type { SessionMode } from "./modes.js";

export type GateDecision =
  | { action: "allow"; reason: string }
  | { action: "deny"; reason: string }
  | {
      action: "ask";
      reason: string;
      /** Key under which "always" choices are remembered; null when "always" is not offered. */
      alwaysKey: string | null;
      alwaysLabel: string | null;
    };

export type RememberedDecision = "allow" | "deny";

/** Where "always" choices live: the session in memory, or a per-project file (permissions/approval-store). */
export interface ApprovalMemory {
  lookup(key: string): RememberedDecision | undefined;
  remember(key: string, decision: RememberedDecision, label: string): void;
}

export function createSessionApprovalMemory(): ApprovalMemory & { entries(): Array<{ key: string; decision: RememberedDecision; label: string }> } {
  const map = new Map<string, { decision: RememberedDecision; label: string }>();
  return {
    lookup: (key) => map.get(key)?.decision,
    remember: (key, decision, label) => void map.set(key, { decision, label }),
    entries: () => [...map].map(([key, v]) => ({ key, ...v })),
  };
}

export type PolicyInput = {
  tool: AnyTool;
  input: unknown;
  presentation: ToolPresentation;
  mode: SessionMode;
  roots: readonly string[];
  /** Backend route prefixes ("/memories/", ...): the agent's own storage, treated as inside the project. */
  virtualPrefixes: readonly string[];
  /** Extra directories the agent may read without asking (skill folders); writes there still ask. */
  readRoots?: readonly string[];
};

/**
 * What the session's mode and the call's effect say about a tool call, before hooks, file rules and
 * remembered choices. Deterministic and side-effect free.
 */
export function decideByMode({ tool, input, presentation, mode, roots, virtualPrefixes, readRoots = [] }: PolicyInput): GateDecision {
  if (mode === "bypass") return { action: "allow", reason: "bypass mode" };
  const readable = tool.effect === "read" ? [...roots, ...readRoots] : roots;
  const outside = (presentation.paths ?? []).filter((p) => !isInsideRoots(p, readable) && !isVirtualPath(p, virtualPrefixes));
  const outsideNote = outside.length > 0 ? ` outside the project (${outside[0]})` : "";
  switch (tool.effect) {
    case "none":
      return { action: "allow", reason: "no side effects" };
    case "read":
      if (outside.length === 0) return { action: "allow", reason: "read inside the project" };
      return ask(`reads${outsideNote}`, `${tool.name}:outside:${outside[0]}`, `Always allow ${tool.name} of ${outside[0]}`);
    case "edit":
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      if (outside.length > 0) return ask(`edits a file${outsideNote}`, `${tool.name}:outside:${outside[0]}`, `Always allow ${tool.name} of ${outside[0]}`);
      if (mode === "accept-edits") return { action: "allow", reason: "accept-edits mode" };
      return ask("edits a file", `tool:${tool.name}`, `Always allow ${tool.name} in this project`);
    case "delete":
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      return ask(`deletes${outsideNote || " a file"}`, `tool:${tool.name}`, "Always allow deletes in this project");
    case "execute": {
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      const command = typeof (input as { command?: unknown })?.command === "string" ? (input as { command: string }).command : "";
      const prefix = commandPrefix(command);
      return prefix
        ? ask("runs a shell command", `execute:${prefix}`, `Always allow \`${prefix}\` commands`)
        : ask("runs a shell command", null, null);
    }
    case "network": {
      // Fetching changes nothing locally, so plan mode offers it too; every new host still asks.
      const host = fetchHost(input);
      return host ? ask(`fetches from ${host}`, `fetch:${host}`, `Always allow fetching from ${host}`) : ask("fetches from the network", null, null);
    }
    case "external":
      if (mode === "plan") return { action: "deny", reason: "plan mode is read-only" };
      return tool.name === "eval"
        ? ask("runs code that can call tools with side effects", null, null)
        : ask("calls a tool with side effects", `tool:${tool.approvalId ?? tool.name}`, `Always allow ${tool.name}`);
  }
}

function ask(reason: string, alwaysKey: string | null, alwaysLabel: string | null): GateDecision {
  return { action: "ask", reason, alwaysKey, alwaysLabel };
}

export function isVirtualPath(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((prefix) => path.startsWith(prefix) || path === prefix.replace(/\/$/, ""));
}
