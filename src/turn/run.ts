import { randomUUID } from "node:crypto";
import type { AgentEvent, TurnResult, UserEntry } from "../agent/events.js";
import { runTurn, type TurnOptions } from "../agent/loop.js";
import type { UserMessage } from "../model/types.js";
import { assembleTurn } from "./assembly.js";
import { createSessionCompactor } from "./compaction/setup.js";
import { createResultOffloader } from "./compaction/offload.js";
import { createHookBridge } from "./hook-bridge.js";
import type { PromptBlock } from "../tools/types.js";
import { promptText, resolvePrompt } from "./prompt.js";
import { createSubagentRunner } from "./subagent-runner.js";
import { createPeerRunner } from "./peer-runner.js";
import { decideMention } from "../gate/seams/mention.js";
import type { SteeringInbox, TurnContext } from "./context.js";

/** `submitted` is false when a UserPromptSubmit hook stopped the prompt before the model saw it. */
export type PromptTurnOutcome = { result: TurnResult; submitted: boolean };

/**
 * One prompt turn around the agent loop: resolve the prompt, run UserPromptSubmit hooks, assemble
 * tools and system prompt, wire compaction, offload, hooks and subagents, run the loop.
 */
export async function runPromptTurn(input: TurnContext): Promise<PromptTurnOutcome> {
  const { blocks, model, config, extensions, workspace, signal } = input;
  const hooks = () => extensions.hooks;
  /** Shown in the editor, not kept in the transcript: notices and the reason a hook blocked the prompt. */
  const show = (event: AgentEvent) => input.emit({ type: "editor_only", event });
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
      show({ type: "message_chunk", messageId: randomUUID(), text: `Prompt blocked by a hook: ${why}` });
      return undefined;
    }
    return { message, hooked };
  };
  const accepted = await submit(blocks);
  if (!accepted) return { result: { stopReason: "end_turn" }, submitted: false };
  const { message: prompt, hooked: submitted } = accepted;
  for (const message of submitted?.systemMessages ?? []) show({ type: "notice", severity: "info", title: message });
  const context = [...input.startContext, ...(submitted?.additionalContext ?? [])];
  if (context.length > 0)
    prompt.content.push({ type: "text", text: `\n\n<system-reminder>\n${context.join("\n\n")}\n</system-reminder>` });

  const turn = assembleTurn(input);
  for (const d of turn.diagnostics)
    show({ type: "notice", severity: "warning", title: d.message, description: d.source });
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
    compact: compactor.prepareMessages,
    hooks: createHookBridge(hooks),
    ...(input.spendLimit ? { spendLimit: input.spendLimit } : {}),
    ...(input.steering ? { steering: steeringSeam(input.steering, submit) } : {}),
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
    ...(input.peers
      ? {
          runPeer: createPeerRunner({
            peers: input.peers,
            agents: config.agents,
            parent: options,
            tools: turn.subagentTools,
            cwd: input.session.cwd,
            hooks,
            ...(input.subagents ? { running: input.subagents } : {}),
          }),
        }
      : {}),
  });
  const entry: UserEntry = { message: prompt, messageId: input.messageId, blocks };
  return { result: await runTurn(input.history, entry, options), submitted: true };
}

/** What the turn's tool calls run with: the shared tool context, the gate's settings, the offloader. */
function toolCallSeams(input: TurnContext): TurnOptions["toolCalls"] {
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
  submit: (blocks: readonly PromptBlock[]) => Promise<{ message: UserMessage } | undefined>,
): NonNullable<TurnOptions["steering"]> {
  return {
    pending: () => inbox.pending(),
    async take(signal) {
      const joined: UserEntry[] = [];
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
        item.settle("joined");
        joined.push({ message: accepted.message, messageId: item.messageId, blocks: item.blocks });
      }
      return joined;
    },
  };
}
