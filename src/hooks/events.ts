// The lifecycle events and their stdin payloads, with Claude Code's wire names (snake_case keys) so
// hook scripts written for Claude Code read our payloads unchanged.

export const HOOK_EVENT_NAMES = [
  "SessionStart",
  "UserPromptSubmit",
  "SessionEnd",
  "PermissionRequest",
  "Notification",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "PreCompact",
  "Stop",
  "SubagentStart",
  "SubagentStop",
] as const;

export type HookEventName = (typeof HOOK_EVENT_NAMES)[number];

/**
 * What exit code 2 (or `decision: "block"`) means for an event:
 * - block: stops the operation (prompt, tool call, permission, compaction)
 * - feedback: the reason goes back to the model (appended to a tool result, or continues a Stop)
 * - diagnose: nothing can be blocked; the reason only becomes a diagnostic
 */
export type BlockPolicy = "block" | "feedback" | "diagnose";

export type HookEventSpec = {
  /** Payload field the matcher is tested against; null when the event takes no matcher. */
  matcherField: string | null;
  defaultTimeoutSec: number;
  blockPolicy: BlockPolicy;
  /** Plain (non-JSON) stdout on exit 0 becomes additional context. */
  plainStdoutIsContext: boolean;
};

export const HOOK_EVENTS: Readonly<Record<HookEventName, HookEventSpec>> = {
  SessionStart: { matcherField: "source", defaultTimeoutSec: 600, blockPolicy: "diagnose", plainStdoutIsContext: true },
  UserPromptSubmit: { matcherField: null, defaultTimeoutSec: 30, blockPolicy: "block", plainStdoutIsContext: true },
  SessionEnd: { matcherField: "reason", defaultTimeoutSec: 600, blockPolicy: "diagnose", plainStdoutIsContext: false },
  PermissionRequest: {
    matcherField: "tool_name",
    defaultTimeoutSec: 600,
    blockPolicy: "block",
    plainStdoutIsContext: false,
  },
  Notification: {
    matcherField: "notification_type",
    defaultTimeoutSec: 600,
    blockPolicy: "diagnose",
    plainStdoutIsContext: false,
  },
  PreToolUse: { matcherField: "tool_name", defaultTimeoutSec: 600, blockPolicy: "block", plainStdoutIsContext: false },
  PostToolUse: {
    matcherField: "tool_name",
    defaultTimeoutSec: 600,
    blockPolicy: "feedback",
    plainStdoutIsContext: false,
  },
  PostToolUseFailure: {
    matcherField: "tool_name",
    defaultTimeoutSec: 600,
    blockPolicy: "feedback",
    plainStdoutIsContext: false,
  },
  PreCompact: { matcherField: "trigger", defaultTimeoutSec: 600, blockPolicy: "block", plainStdoutIsContext: false },
  Stop: { matcherField: null, defaultTimeoutSec: 600, blockPolicy: "feedback", plainStdoutIsContext: false },
  SubagentStart: {
    matcherField: "agent_type",
    defaultTimeoutSec: 600,
    blockPolicy: "diagnose",
    plainStdoutIsContext: false,
  },
  SubagentStop: {
    matcherField: "agent_type",
    defaultTimeoutSec: 600,
    blockPolicy: "feedback",
    plainStdoutIsContext: false,
  },
};

export function isHookEventName(value: string): value is HookEventName {
  return Object.hasOwn(HOOK_EVENTS, value);
}

/** Claude Code's permission mode names (the session maps its modes with agent/modes.ts `hookPermissionMode`). */
export type HookPermissionMode = "default" | "acceptEdits" | "plan" | "bypassPermissions";

/** Fields every payload carries; the engine fills the first four. */
export type HookBasePayload = {
  session_id: string;
  transcript_path: string;
  cwd: string;
  hook_event_name: HookEventName;
  permission_mode?: string;
  prompt_id?: string;
  /** Set when the event comes from inside a subagent. */
  agent_id?: string;
  agent_type?: string;
};

/** Claude-compatible `tool_input`; see tool-names.ts for the shapes per tool. */
export type HookToolInput = Record<string, unknown>;

/** Event-specific payload fields, as the caller supplies them. */
export type HookEventInputs = {
  SessionStart: { source: "startup" | "resume" | "clear" | "compact"; model?: string };
  UserPromptSubmit: { prompt: string };
  SessionEnd: { reason: "clear" | "resume" | "logout" | "prompt_input_exit" | "other" };
  PermissionRequest: { tool_name: string; tool_input: HookToolInput; permission_suggestions?: unknown[] };
  Notification: {
    message: string;
    notification_type:
      "permission_prompt" | "idle_prompt" | "auth_success" | "agent_needs_input" | "agent_completed" | (string & {});
    title?: string;
  };
  PreToolUse: { tool_name: string; tool_input: HookToolInput; tool_use_id: string };
  PostToolUse: {
    tool_name: string;
    tool_input: HookToolInput;
    tool_use_id: string;
    tool_response: unknown;
    duration_ms?: number;
  };
  PostToolUseFailure: {
    tool_name: string;
    tool_input: HookToolInput;
    tool_use_id: string;
    error: string;
    is_interrupt?: boolean;
    duration_ms?: number;
  };
  PreCompact: { trigger: "manual" | "auto"; custom_instructions: string };
  Stop: { stop_hook_active: boolean; last_assistant_message?: string };
  SubagentStart: { agent_id: string; agent_type: string };
  SubagentStop: {
    stop_hook_active: boolean;
    agent_id: string;
    agent_type: string;
    agent_transcript_path?: string;
    last_assistant_message?: string;
  };
};

/** What `engine.run(event, input)` accepts: the event fields plus optional base overrides. */
export type HookEventInput<E extends HookEventName> = HookEventInputs[E] &
  Partial<Pick<HookBasePayload, "permission_mode" | "prompt_id" | "agent_id" | "agent_type" | "cwd">>;

/** The JSON written to a hook's stdin. */
export type HookPayload<E extends HookEventName = HookEventName> = HookBasePayload & HookEventInputs[E];
