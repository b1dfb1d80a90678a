import type { Diagnostic } from "../util/diagnostics.js";
import type { HookEventName } from "./events.js";
import type { CompiledMatcher } from "./matcher.js";

/** Reduction precedence: project results decide conflicts over user ones, user over plugin. */
export type HookScope = "project" | "user" | "plugin";

export const HOOK_SCOPE_RANK: Readonly<Record<HookScope, number>> = { project: 0, user: 1, plugin: 2 };

/** One hooks.json to load. */
export type HookSource = {
  scope: HookScope;
  /** The hooks.json path (for inline plugin hooks: the manifest path, used in diagnostics). */
  file: string;
  /** Already-parsed config (a plugin manifest's inline `hooks` object); when set, `file` is not read. */
  content?: unknown;
  pluginId?: string;
  /** Exported to plugin hooks as CLAUDE_PLUGIN_ROOT / PLUGIN_ROOT. */
  pluginRoot?: string;
  /** Exported to plugin hooks as CLAUDE_PLUGIN_DATA / PLUGIN_DATA. */
  pluginDataDir?: string;
};

/** A validated `{"type": "command", ...}` entry. */
export type HookHandlerConfig = {
  /** Run through `/bin/sh -c`; shown as the label when `argv` is also given. */
  command?: string;
  /** Run directly, without a shell; wins over `command`. */
  argv?: string[];
  timeoutSec?: number;
  statusMessage?: string;
};

/** One loaded handler: an event, its matcher group's matcher, and one command. */
export type HookItem = {
  /** Stable within a load: `<scope>:<file>#<path>`. */
  id: string;
  event: HookEventName;
  matcher: CompiledMatcher;
  handler: HookHandlerConfig;
  source: HookSource;
  /** JSON path inside the file, e.g. `hooks.PreToolUse[0].hooks[1]`. */
  path: string;
  /** Position in load order; ties within a scope are broken by it. */
  order: number;
};

export type HookDiagnosticCode =
  | "invalid_config"
  | "read_failed"
  | "invalid_matcher"
  | "spawn_failed"
  | "timeout"
  | "nonzero_exit"
  | "output_truncated"
  | "plain_output_ignored"
  | "invalid_output"
  | "unsupported_field"
  | "unknown_field"
  | "event_mismatch"
  | "block_ignored"
  | "cancelled"
  | "continuation_cap"
  | "untrusted";

/** A shared `Diagnostic` (source = the hooks file) plus what went wrong and where. */
export type HookDiagnostic = Diagnostic & {
  code: HookDiagnosticCode;
  event?: HookEventName;
  /** The command's label (`command`, or argv joined). */
  hook?: string;
};

export type PermissionDecision = "allow" | "deny" | "ask";

export type PermissionRequestDecision = {
  behavior: "allow" | "deny";
  /** Deny message for the model. */
  message?: string;
  /** Deny and stop the turn (Claude Code's `interrupt: true`). */
  interrupt?: boolean;
};

/** How one handler run ended, before reduction. */
export type HookRunOutcome = {
  itemId: string;
  source: HookSource;
  hook: string;
  exitCode: number | null;
  timedOut: boolean;
  cancelled: boolean;
  durationMs: number;
};

/**
 * All matching handlers' results for one event, reduced in precedence order (project, user,
 * plugin; config order within a file) regardless of which finished first.
 */
export type ReducedHookResult = {
  event: HookEventName;
  /** How many handlers ran. */
  handlerCount: number;
  /**
   * Exit 2 or `decision: "block"` for an event whose block policy is not "diagnose":
   * UserPromptSubmit drops the prompt, PreCompact skips compaction, PostToolUse* / SubagentStop
   * carry `reason` to the model, Stop continues the turn with `reason`. For PreToolUse and
   * PermissionRequest a block shows up as a deny decision (and sets this too).
   */
  blocked: boolean;
  /** Reasons of the results that decided the outcome, in precedence order, joined by blank lines. */
  reason?: string;
  /** False when any handler said `continue: false`: the agent stops after this step. */
  continue: boolean;
  /** First `stopReason` in precedence order; shown to the user when the agent stops. */
  stopReason?: string;
  /** `systemMessage` of every handler, for the editor (not the model). */
  systemMessages: string[];
  /** Context for the model: `additionalContext`, plus plain stdout for SessionStart / UserPromptSubmit. */
  additionalContext: string[];
  /** PreToolUse: most restrictive decision, deny > ask > allow; undefined when no hook decided. */
  permissionDecision?: PermissionDecision;
  /** PermissionRequest: deny beats allow; undefined when no hook decided (show the dialog). */
  permissionRequestDecision?: PermissionRequestDecision;
  /** The turn was cancelled while hooks ran; the handlers were killed and nothing else applies. */
  cancelled: boolean;
  diagnostics: HookDiagnostic[];
  outcomes: HookRunOutcome[];
};
