import type { TurnEventSink } from "../agent/events.js";
import type { ToolCallSeams } from "../agent/loop.js";
import type { BackendProtocol, SandboxBackendProtocol } from "../backends/protocol.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import type { Extensions } from "../extensions/index.js";
import type { GateSession } from "../gate/call/procedure.js";
import type { WorkerSandboxFactory } from "../interpreter/index.js";
import type { Message, ModelClient, ProviderName } from "../model/types.js";
import type { BackgroundHost, PromptBlock } from "../tools/types.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { ClientSystemPrompt } from "./system-prompt.js";
import type { TurnPeers } from "./peer-runner.js";

/** The parts of a session a turn is assembled from. */
export type SessionView = {
  id: string;
  cwd: string;
  roots: readonly string[];
  mode: SessionMode;
  /** The editor's instructions for the session (the main agent's prompt; subagents keep their own). */
  systemPrompt?: ClientSystemPrompt;
};

/** Who decides whether a tool call may run: the gate's one seam into a turn. */
export type TurnGate = GateSession;

export type SteeringOutcome = "joined" | "blocked" | "left" | "cancelled";

/** Messages the user sent while this turn runs (steering); see session/steering.ts. */
export type SteeringInbox = {
  pending(): boolean;
  /**
   * Removes the waiting messages; each is told what became of it: it joined the turn, a hook
   * stopped it (already said), or it was left out (the turn was cancelled) and runs as a turn of its own.
   */
  take(): Array<{ blocks: readonly PromptBlock[]; messageId: string; settle(outcome: SteeringOutcome): void }>;
};

/**
 * Everything one prompt turn runs with, built once by the session and read where it is needed
 * (the prompt's checks, assembly, compaction, tool calls, subagents), never copied field by field.
 * What the turn has to say goes back one way: `emit`.
 */
export type TurnContext = {
  session: SessionView;
  /** The user's message: what the editor showed, and its id. */
  blocks: readonly PromptBlock[];
  messageId: string;
  history: readonly Message[];
  /** SessionStart context not yet sent to the model. */
  startContext: readonly string[];
  workspace: { backend: BackendProtocol; executor?: SandboxBackendProtocol; virtualPrefixes: readonly string[] };
  model: ModelClient;
  createModel(spec: string): Promise<ModelClient>;
  /** Providers the user set up (project subagents may use only these). */
  configuredProviders?: () => Promise<ReadonlySet<ProviderName>>;
  config: DeepAcpConfig;
  extensions: Extensions;
  interpreterSandboxes?: WorkerSandboxFactory;
  now: Date;
  env: NodeJS.ProcessEnv;
  gate: TurnGate;
  /** Shows ask_user questions; absent = the model asks in the conversation. */
  questioner?: ToolCallSeams["questioner"];
  /** Checked before each model request: a message stops the turn (the session's spend limit). */
  spendLimit?: () => string | undefined;
  /** The session's background processes (execute with background: true). */
  background?: BackgroundHost;
  /** Where the turn's running subagents are kept by child session id (to cancel one). */
  subagents?: Map<string, AbortController>;
  steering?: SteeringInbox;
  /** The session's other ACP agents (`[agents.NAME]`); absent: they cannot run here. */
  peers?: TurnPeers;
  /** The turn's events and reports, to the session's observer (session/turn-observer.ts). */
  emit: TurnEventSink;
  signal: AbortSignal;
};
