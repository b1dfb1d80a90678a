import type { BackgroundHost } from "../tools/types.js";
import { randomUUID } from "node:crypto";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import { runTurn, type ToolCallSeams, type TurnOptions } from "../agent/loop.js";
import type { BackendProtocol, SandboxBackendProtocol } from "../backends/protocol.js";
import type { DeepAcpConfig } from "../config/config-file.js";
import type { Extensions } from "../extensions/index.js";
import type { WorkerSandboxFactory } from "../interpreter/index.js";
import type { Message, ModelClient, ProviderName, UserMessage } from "../model/types.js";
import { assembleTurn, type SessionView } from "./assembly.js";
import { createSessionCompactor } from "./compaction/setup.js";
import { createResultOffloader } from "./compaction/offload.js";
import { createHookBridge } from "./hook-bridge.js";
import type { PromptBlock } from "../tools/types.js";
import { promptText, resolvePrompt } from "./prompt.js";
import { createSubagentRunner } from "./subagent-runner.js";
import { decideMention } from "../gate/seams/mention.js";
import type { GateSession } from "../gate/call/procedure.js";

/** Who decides whether a tool call may run: the gate's one seam into a turn. */
export type TurnGate = GateSession;

/** Where a turn's messages go: the session's history and its transcript. */
export type TurnRecord = {
  /** The user's message as the model gets it, with the blocks the editor showed; it opens the turn. */
  prompt(message: UserMessage, blocks: readonly PromptBlock[]): void;
  /** Each later message of the turn, assistant messages with their streamed id. */
  message(message: Message, messageId?: string): void;
  /** Compaction replaced the conversation. */
  historyReplaced(messages: Message[]): void;
  /** A user message that joined the running turn (steering), under its own id. */
  steered?(message: UserMessage, blocks: readonly PromptBlock[], messageId: string): void;
};

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

export type PromptTurnInput = {
  session: SessionView;
  blocks: readonly PromptBlock[];
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
  record: TurnRecord;
  steering?: SteeringInbox;
  /** The turn's events (recorded and shown). */
  emit(event: AgentEvent): void;
  /** Shown in the editor only: notices and the reason a hook blocked the prompt. */
  show(event: AgentEvent): void;
  signal: AbortSignal;
};

/** `submitted` is false when a UserPromptSubmit hook stopped the prompt before the model saw it. */
export type PromptTurnOutcome = { result: TurnResult; submitted: boolean };

/**
 * One prompt turn around the agent loop: resolve the prompt, run UserPromptSubmit hooks, assemble
 * tools and system prompt, wire compaction, offload, hooks and subagents, run the loop.
 */
export async function runPromptTurn(input: PromptTurnInput): Promise<PromptTurnOutcome> {
  const { blocks, model, config, extensions, workspace, signal } = input;
  const hooks = () => extensions.hooks;
  /** The user's blocks as the model gets them, after UserPromptSubmit hooks (undefined: a hook stopped them). */
  const submit = async (prompted: readonly PromptBlock[]) => {
    const message = await resolvePrompt(prompted, workspace.backend, model.supportsImages, (path) =>
      decideMention(path, {
        roots: input.session.roots,
        readRoots: extensions.skills.roots,
        virtualPrefixes: workspace.virtualPrefixes,
        ...(input.gate.policy?.fs ? { fs: input.gate.policy.fs } : {}),
      }),
    );
    const hooked = hooks().hasHandlers("UserPromptSubmit")
      ? await hooks().run("UserPromptSubmit", { prompt: promptText(prompted) }, { signal })
      : undefined;
    if (hooked?.blocked || hooked?.continue === false) {
      const why = hooked.reason ?? hooked.stopReason ?? "a UserPromptSubmit hook stopped it";
      input.show({ type: "message_chunk", messageId: randomUUID(), text: `Prompt blocked by a hook: ${why}` });
      return undefined;
    }
    return { message, hooked };
  };
  const accepted = await submit(blocks);
  if (!accepted) return { result: { stopReason: "end_turn" }, submitted: false };
  const { message: prompt, hooked: submitted } = accepted;
  for (const message of submitted?.systemMessages ?? [])
    input.show({ type: "notice", severity: "info", title: message });
  const context = [...input.startContext, ...(submitted?.additionalContext ?? [])];
  if (context.length > 0)
    prompt.content.push({ type: "text", text: `\n\n<system-reminder>\n${context.join("\n\n")}\n</system-reminder>` });

  const turn = assembleTurn({
    session: input.session,
    workspace,
    model,
    config,
    now: input.now,
    env: input.env,
    extensions,
    interpreterSandboxes: input.interpreterSandboxes,
  });
  for (const d of turn.diagnostics)
    input.show({ type: "notice", severity: "warning", title: d.message, description: d.source });
  const fixedChars = turn.system.length + JSON.stringify(turn.tools.map((t) => t.jsonSchema)).length;
  const compactor = createSessionCompactor({
    sessionId: input.session.id,
    workspace,
    model,
    config,
    emit: input.emit,
    fixedChars,
    hooks,
  });
  const options: TurnOptions = {
    model: {
      client: model,
      system: turn.system,
      tools: turn.tools,
      maxRequests: config.agent.max_turn_requests,
      maxOutputTokens: config.model.max_output_tokens,
    },
    toolCalls: toolCallSeams(input),
    history: {
      onMessage: (message, mid) =>
        message === prompt ? input.record.prompt(prompt, blocks) : input.record.message(message, mid),
      prepareMessages: compactor.prepareMessages,
      onHistoryReplaced: (messages) => input.record.historyReplaced(messages),
    },
    hooks: createHookBridge(hooks),
    ...(input.spendLimit ? { spendLimit: input.spendLimit } : {}),
    ...(input.steering && input.record.steered ? { steering: steeringSeam(input.steering, input.record, submit) } : {}),
    signal,
    emit: input.emit,
  };
  options.toolCalls.runSubagent = createSubagentRunner({
    subagents: extensions.subagents,
    parent: options,
    parentModel: model,
    tools: turn.subagentTools,
    createModel: input.createModel,
    ...(input.configuredProviders ? { configuredProviders: input.configuredProviders } : {}),
    systemPrompt: turn.subagentSystem,
    hooks,
    ...(input.subagents ? { running: input.subagents } : {}),
  });
  return { result: await runTurn(input.history, prompt, options), submitted: true };
}

/** What the turn's tool calls run with: the shared tool context, the gate's settings, the offloader. */
function toolCallSeams(input: PromptTurnInput): TurnOptions["toolCalls"] {
  const { config, workspace, extensions } = input;
  return {
    context: {
      sessionId: input.session.id,
      cwd: input.session.cwd,
      roots: input.session.roots,
      backend: workspace.backend,
      executor: workspace.executor,
      ...(input.background ? { background: input.background } : {}),
      limits: { shellTimeoutMs: config.shell.timeout_seconds * 1000, shellOutputChars: config.shell.output_chars },
    },
    gate: {
      ...input.gate,
      mode: input.session.mode,
      virtualPrefixes: workspace.virtualPrefixes,
      readRoots: extensions.skills.roots,
    },
    questioner: input.questioner,
    finalizeResult: createResultOffloader({
      backend: workspace.backend,
      thresholdChars: config.offload.tool_result_chars,
    }),
  };
}

/** The loop's steering seam: each waiting message goes through the prompt's own checks, then joins. */
function steeringSeam(
  inbox: SteeringInbox,
  record: TurnRecord,
  submit: (blocks: readonly PromptBlock[]) => Promise<{ message: UserMessage } | undefined>,
): NonNullable<TurnOptions["steering"]> {
  return {
    pending: () => inbox.pending(),
    async take(signal) {
      const joined: UserMessage[] = [];
      for (const item of inbox.take()) {
        if (signal.aborted) {
          item.settle("left");
          continue;
        }
        const accepted = await submit(item.blocks);
        if (!accepted) {
          item.settle("blocked");
          continue;
        }
        record.steered!(accepted.message, item.blocks, item.messageId);
        item.settle("joined");
        joined.push(accepted.message);
      }
      return joined;
    },
  };
}
