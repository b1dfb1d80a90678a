import type {
  BackgroundExit,
  BackgroundProcessInfo,
  BackgroundRead,
} from "../backends/processes/background-processes.js";
import type { BackendProtocol, SandboxBackendProtocol } from "../backends/protocol.js";
import type { UserContent } from "../model/types.js";

/** Same strings as ACP's ToolKind; tools choose theirs at definition time. */
export type ToolKind =
  "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "switch_mode" | "other";

/**
 * What a call can do to the user's machine; the approval policy and `plan` mode decide from this.
 * - read: reads files (asks only outside the session roots)
 * - edit / delete: changes files
 * - execute: runs commands
 * - external: anything else with side effects (non-read-only MCP tools, eval with a write allowlist)
 * - network: reads from the network (web_fetch); asks per host
 * - none: no effect outside the conversation (todos; subagents ask for their own actions)
 */
export type ToolEffect = "read" | "edit" | "delete" | "execute" | "external" | "network" | "none";

// The content vocabulary every room shares, low enough for all of them: what a user sends (a prompt's
// blocks, ACP content already resolved to absolute paths by acp/, not yet read) and what the editor
// is shown of a tool call. The transcript records both; turn/ reads prompts; tools make displays.

export type PromptBlock =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string; uri?: string }
  /** A mentioned file (ACP resource_link with a file:// or cwd-relative URI). */
  | { type: "file"; path: string; name: string; uri: string }
  /** Any other link (http, zed://...) the agent cannot read itself. */
  | { type: "link"; uri: string; name: string }
  /** Embedded context (ACP resource): text, or base64 blob. */
  | { type: "resource"; uri: string; text?: string; blob?: string; mimeType?: string };

export type ToolLocation = { path: string; /** 1-based */ line?: number };

/** What the editor shows for a call; richer than what the model sees. */
export type ToolDisplay =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; data: string }
  | { type: "diff"; path: string; oldText: string | null; newText: string }
  | { type: "terminal"; terminalId: string };

export type ToolPresentation = {
  title: string;
  locations?: ToolLocation[];
  /** Absolute paths the call touches, checked against the session roots and file rules. */
  paths?: string[];
};

export type ToolResult = {
  /** Sent to the model. */
  content: UserContent[];
  isError?: boolean;
  /** Shown in the editor; defaults to `content`. */
  display?: ToolDisplay[];
  locations?: ToolLocation[];
  rawOutput?: unknown;
  /**
   * Ends the turn after this round of tool calls with this text as the agent's message (ask_user
   * when the user can only answer with their next prompt).
   */
  endTurnWith?: string;
  /**
   * The call started a background process: its tool call stays in progress in the editor (with live
   * output) after the model got this result, until the process exits or is stopped.
   */
  background?: boolean;
};

/** The session's background processes, as tools see them. */
export interface BackgroundHost {
  /** Starts `command`; its live output and exit are shown on tool call `toolCallId`. A string is why it did not start. */
  launch(command: string, cwd: string, toolCallId: string, signal: AbortSignal): BackgroundProcessInfo | string;
  read(id: string, maxChars: number): BackgroundRead | undefined;
  stop(id: string): Promise<BackgroundExit | undefined>;
  list(): BackgroundProcessInfo[];
}

/** A question for the user (ask_user, or an MCP server's elicitation). */
export type UserQuestion = {
  question: string;
  /** Choices; none means a free-text answer. */
  options?: string[];
  multiSelect?: boolean;
};

export type UserAnswer =
  /** `selected` holds chosen options; `text` a free-text answer or the "other" field. */
  | { outcome: "answered"; selected: string[]; text?: string }
  | { outcome: "declined" }
  /** The editor cannot show this question now; ask in the conversation instead. */
  | { outcome: "unavailable"; reason: string }
  /** Nobody can answer (headless without answers on stdin); the call fails with this message. */
  | { outcome: "failed"; message: string }
  | { outcome: "cancelled" };

/** What the user did with a relayed form (an MCP server's elicitation). */
export type FormAnswer =
  | { action: "accept"; content: Record<string, unknown> }
  | { action: "decline" }
  | { action: "cancel" }
  /** Nothing can show this form (the editor has no form elicitation, or headless), or it asks for a secret. */
  | { action: "unsupported"; reason: string; secret?: true };

/** Shows questions to the user: an editor form or choice, or answers typed on stdin (headless). */
export interface Questioner {
  /** Whether `form` can show anything (decides whether MCP servers are told we support elicitation). */
  readonly forms: boolean;
  /** `subagentSessionId`: a subagent asks (its child session, for editors that show child sessions). */
  ask(
    question: UserQuestion,
    where: { toolCallId: string; subagentSessionId?: string },
    signal: AbortSignal,
  ): Promise<UserAnswer>;
  /** Shows a form as given (flat JSON Schema of primitive fields, as MCP and ACP define it). */
  form(
    request: { message: string; schema: Record<string, unknown> },
    where: { toolCallId?: string },
    signal: AbortSignal,
  ): Promise<FormAnswer>;
  /** Whether `openUrl` can show anything (the editor advertises `elicitation.url`). */
  readonly urls?: boolean;
  /** Asks the editor to open `url` (a URL elicitation, e.g. an OAuth sign-in); resolves with what the user chose. */
  openUrl?(request: { message: string; url: string; elicitationId: string }, signal: AbortSignal): Promise<UrlAnswer>;
  /** Tells the editor the flow behind a URL elicitation finished. */
  urlDone?(elicitationId: string): void;
}

/** What the user did with a URL elicitation. */
export type UrlAnswer = "accept" | "decline" | "cancel" | "unsupported";

export type PlanEntry = {
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "high" | "medium" | "low";
};

/** Live progress a running tool reports; the agent forwards it as events. */
export type ToolProgress =
  { type: "output"; data: string } | { type: "terminal"; terminalId: string } | { type: "plan"; entries: PlanEntry[] };

export type ToolLimits = {
  /** Default `execute` timeout. */
  shellTimeoutMs: number;
  /** Characters of command output kept (head and tail). */
  shellOutputChars: number;
};

/** Per-turn scratch space: the interpreter keeps its QuickJS state here between `eval` calls. */
export interface TurnScope {
  readonly id: string;
  readonly state: Map<string, unknown>;
  /** Runs when the turn ends (normally or cancelled); used to free per-turn resources. */
  onEnd(dispose: () => void): void;
}

export type SubagentRequest = {
  description: string;
  subagentType: string;
  /** JSON Schema the subagent's final answer must follow; the answer is returned as JSON text. */
  responseSchema?: Record<string, unknown>;
};

export interface ToolContext {
  sessionId: string;
  toolCallId: string;
  /** Session working directory; relative paths resolve against it. */
  cwd: string;
  /** `[cwd, ...additionalDirectories]`. */
  roots: readonly string[];
  backend: BackendProtocol;
  /** Command execution; absent when the session cannot run commands. */
  executor?: SandboxBackendProtocol;
  signal: AbortSignal;
  limits: ToolLimits;
  turn: TurnScope;
  progress(event: ToolProgress): void;
  /**
   * Runs another tool through the agent's whole pipeline (validation, file rules, approvals,
   * hooks, editor events) as a child of this call. Used by `eval` for programmatic tool calling.
   */
  callTool?(name: string, input: unknown): Promise<ToolResult>;
  /** Runs a subagent as a child of this call and returns its final answer. */
  runSubagent?(request: SubagentRequest): Promise<ToolResult>;
  /** Long-running processes owned by the session (execute with background: true). */
  background?: BackgroundHost;
  /** Asks the user; absent when nothing can show a question (then ask_user ends the turn). */
  askUser?(question: UserQuestion): Promise<UserAnswer>;
}

export type PresentContext = Pick<ToolContext, "cwd" | "roots" | "executor">;

export type ValidationResult<T> = { success: true; data: T } | { success: false; error: string };

export interface ToolDefinition<Input = unknown> {
  /** Model-facing name. */
  name: string;
  /** Claude-compatible wire name used by hooks (`Bash`, `Write`, `mcp__srv__tool`, ...). */
  hookName: string;
  description: string;
  /** JSON Schema of the input object, as sent to the model. */
  jsonSchema: Record<string, unknown>;
  kind: ToolKind;
  effect: ToolEffect;
  /**
   * What a remembered "always allow" of this tool is bound to. Default: `name`. MCP tools of project
   * servers include their source and definition fingerprint, so a same-named tool from another
   * definition never inherits the approval.
   */
  approvalId?: string;
  /** Reports command output through `progress({type:"output"})` while it runs (shown as a live terminal). */
  streamsOutput?: boolean;
  /** What the call asks the user (ask_user): the gate refuses questions that ask for a secret. */
  question?(input: Input): { text: string; options?: readonly string[] };
  /** At most one call per model message (several in one message all fail), e.g. write_todos. */
  singletonPerMessage?: boolean;
  validate(raw: unknown): ValidationResult<Input>;
  present(input: Input, ctx: PresentContext): ToolPresentation;
  execute(input: Input, ctx: ToolContext): Promise<ToolResult>;
  /** What the user should see in the approval dialog (a diff for edits, the code for eval). */
  preview?(input: Input, ctx: ToolContext): Promise<ToolDisplay[]>;
  /**
   * Claude Code's `tool_input` for hook payloads (the one place this mapping lives); default: the
   * input itself.
   */
  hookInput?(input: Input): Record<string, unknown>;
  /**
   * Whether a result too large for the context is saved to a file and replaced by a preview.
   * Default true; the file tools have their own output limits (re-reading a saved file would loop).
   */
  offloadLargeResults?: boolean;
  /**
   * Called when the model starts streaming a call to this tool, before its input is complete: a
   * tool with a slow start (the interpreter's worker) starts it now, so the call does not wait for
   * it and a turn that never calls the tool never pays for it. Must not throw.
   */
  warmUp?(): void;
}

// Tool registries hold tools of different input types; callers only pass validated input back.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any>;
