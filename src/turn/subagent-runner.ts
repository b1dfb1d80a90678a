import { randomUUID } from "node:crypto";
import { isTurnReport, type TurnEvent } from "../agent/events.js";
import type { TurnOptions } from "../agent/loop.js";
import { runTurn } from "../agent/loop.js";
import { hookFeedbackText, type HookEngine } from "../hooks/index.js";
import { subagentModelRefusal } from "../gate/seams/subagent-model.js";
import type { AssistantMessage, Message, ModelClient, ProviderName } from "../model/types.js";
import type { SubagentDefinition } from "../subagents/index.js";
import type { AnyTool, SubagentRequest, ToolResult } from "../tools/types.js";
import { createHookBridge } from "./hook-bridge.js";
import { createTurnAbortController } from "../util/turn-signal.js";

export type SubagentRunnerOptions = {
  subagents: readonly SubagentDefinition[];
  /**
   * The parent turn's options; a subagent shares its model settings, tool calls' seams (approvals,
   * file rules, backends), spend limit and events. Not its compaction (it would write into the
   * parent's conversation) and not its steering: a message the user sends meanwhile is for the
   * parent, which takes it at its next safe point.
   */
  parent: Pick<TurnOptions, "model" | "toolCalls" | "spendLimit" | "emit" | "newId">;
  parentModel: ModelClient;
  /** Tools a subagent gets: the parent's, minus `task` (no recursion). */
  tools: readonly AnyTool[];
  createModel: (spec: string) => Promise<ModelClient>;
  /** Providers the user set up; a project subagent's `model:` may name only these (gate/subagent-model.ts). */
  configuredProviders?: () => Promise<ReadonlySet<ProviderName>>;
  systemPrompt: (subagent: SubagentDefinition) => string;
  hooks: () => HookEngine;
  /** Running subagents by child session id, so `session/cancel` on one stops only that one. */
  running?: Map<string, AbortController>;
  /** Runs a subagent whose definition names another ACP agent (`[agents.NAME]`, turn/peer-runner.ts). */
  runPeer?: (run: PeerRun) => Promise<ToolResult>;
};

/** One task for another ACP agent: the definition naming it and the prompt it is sent. */
export type PeerRun = {
  definition: SubagentDefinition & { agent: string };
  request: SubagentRequest;
  prompt: string;
  agentId: string;
  parentToolCallId: string;
  signal: AbortSignal;
};

/**
 * Runs `task` calls: each subagent gets a fresh context, its own system prompt and (optionally)
 * model, and the parent's tools and approval pipeline. Each run is a child session: announced
 * (`subagent_started`), its own events wrapped in `subagent_event`, closed (`subagent_ended`). Its tool
 * calls also name the task call, for editors that show no child sessions. Cancelling the child
 * (its own AbortController, also aborted with the parent's turn) ends only the subagent: the task
 * call fails with "Cancelled by the user." and the parent's turn goes on. Every announced run is
 * closed, a cancelled one with stop reason `cancelled`, the parent's cancel included.
 */
export function createSubagentRunner(options: SubagentRunnerOptions) {
  return async function runSubagent(
    request: SubagentRequest,
    parentToolCallId: string,
    signal: AbortSignal,
  ): Promise<ToolResult> {
    const definition = options.subagents.find((s) => s.name === request.subagentType);
    if (!definition)
      return {
        content: [{ type: "text", text: `Error: unknown subagent type ${request.subagentType}` }],
        isError: true,
      };
    const agentId = randomUUID();
    const hooks = options.hooks();
    const start = hooks.hasHandlers("SubagentStart", definition.name)
      ? await hooks.run("SubagentStart", { agent_id: agentId, agent_type: definition.name }, { signal })
      : undefined;
    const description = subagentTask(request, start?.additionalContext ?? []);
    if (definition.agent !== undefined) {
      if (!options.runPeer)
        return { content: [{ type: "text", text: `Error: agent ${definition.agent} cannot run here` }], isError: true };
      const prompt = definition.systemPrompt ? `${definition.systemPrompt}\n\n${description}` : description;
      const peer = { ...definition, agent: definition.agent };
      const result = await options.runPeer({ definition: peer, request, prompt, agentId, parentToolCallId, signal });
      if (result.isError || !hooks.hasHandlers("SubagentStop", definition.name)) return result;
      // As for our own subagents: SubagentStop hears the child's answer, and what it says is added to it.
      const answer = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
      const stopped = await hooks.run(
        "SubagentStop",
        { stop_hook_active: false, agent_id: agentId, agent_type: definition.name, last_assistant_message: answer },
        { signal },
      );
      const feedback = hookFeedbackText(stopped);
      return feedback ? { ...result, content: [...result.content, { type: "text", text: `\n\n${feedback}` }] } : result;
    }
    const model = await subagentModel(options, definition);
    if ("content" in model) return model;
    const sessionId = randomUUID();
    const child = createTurnAbortController();
    const abortChild = () => child.abort();
    signal.addEventListener("abort", abortChild, { once: true });
    options.running?.set(sessionId, child);
    const emit = options.parent.emit;
    const announced = !signal.aborted;
    if (announced)
      emit({
        type: "subagent_started",
        sessionId,
        toolCallId: parentToolCallId,
        title: `${definition.name}: ${request.description.split("\n")[0]!.slice(0, 80)}`,
        description: request.description,
        prompt: description,
      });
    const messages: Message[] = [];
    let result: Awaited<ReturnType<typeof runTurn>>;
    try {
      result = await runTurn(
        [],
        { role: "user", content: [{ type: "text", text: description }] },
        {
          toolCalls: options.parent.toolCalls,
          ...(options.parent.spendLimit ? { spendLimit: options.parent.spendLimit } : {}),
          ...(options.parent.newId ? { newId: options.parent.newId } : {}),
          model: {
            ...options.parent.model,
            client: model,
            system: options.systemPrompt(definition),
            tools: options.tools,
          },
          hooks: createHookBridge(options.hooks, { id: agentId, type: definition.name }),
          signal: child.signal,
          // The child's conversation lives only for its run; its events go up as the child session's.
          emit: (event: TurnEvent) => {
            if (event.type === "message") messages.push(event.message);
            else if (!isTurnReport(event)) emit({ type: "subagent_event", sessionId, event });
          },
          parentToolCallId,
          subagentSessionId: sessionId,
        },
      );
    } finally {
      signal.removeEventListener("abort", abortChild);
      options.running?.delete(sessionId);
    }
    // Also when the parent's turn was cancelled (the cancel cascades): the child session's own end,
    // which is no update of a tool call, so nothing the editor marked cancelled is overwritten, and
    // editors without child sessions are sent nothing for it.
    if (announced) {
      const stopReason = child.signal.aborted ? "cancelled" : result.stopReason;
      const error = child.signal.aborted ? undefined : result.error;
      emit({ type: "subagent_ended", sessionId, stopReason, ...(error ? { error } : {}) });
    }
    const answer = lastAssistantText(messages);
    const stop = hooks.hasHandlers("SubagentStop", definition.name)
      ? await hooks.run(
          "SubagentStop",
          { stop_hook_active: false, agent_id: agentId, agent_type: definition.name, last_assistant_message: answer },
          { signal },
        )
      : undefined;
    const feedback = stop ? hookFeedbackText(stop) : undefined;
    if (child.signal.aborted || result.stopReason === "cancelled")
      return { content: [{ type: "text", text: "Cancelled by the user." }], isError: true };
    return subagentAnswer(definition, result, answer, feedback);
  };
}

/** The subagent's prompt: the task, SubagentStart hooks' context, and the answer's schema when one is asked. */
function subagentTask(request: SubagentRequest, context: readonly string[]): string {
  let description = request.description;
  if (context.length) description += `\n\n${context.join("\n\n")}`;
  if (request.responseSchema) {
    description += `\n\nYour final message must be only a JSON value that matches this JSON Schema, with no other text:\n${JSON.stringify(request.responseSchema)}`;
  }
  return description;
}

/** The model a subagent runs on: its own (only from a provider the user set up), else the parent's. */
async function subagentModel(
  options: SubagentRunnerOptions,
  definition: SubagentDefinition,
): Promise<ModelClient | ToolResult> {
  try {
    const refusal =
      definition.model && options.configuredProviders
        ? subagentModelRefusal(definition.model, definition.source, await options.configuredProviders())
        : undefined;
    if (refusal) throw new Error(refusal);
    return definition.model ? await options.createModel(definition.model) : options.parentModel;
  } catch (error) {
    return {
      content: [
        {
          type: "text",
          text: `Error: subagent ${definition.name} cannot use model ${definition.model}: ${(error as Error).message}`,
        },
      ],
      isError: true,
    };
  }
}

/** What the parent's model gets back: the subagent's last answer, with SubagentStop hooks' feedback. */
function subagentAnswer(
  definition: SubagentDefinition,
  result: { stopReason: string; error?: string },
  answer: string,
  feedback: string | undefined,
): ToolResult {
  if (result.error)
    return { content: [{ type: "text", text: `Error: the subagent failed: ${result.error}` }], isError: true };
  const text = answer || `(the subagent ended with ${result.stopReason} and no answer)`;
  const full = feedback ? `${text}\n\n${feedback}` : text;
  return {
    content: [{ type: "text", text: full }],
    display: [{ type: "text", text: full }],
    rawOutput: { subagentType: definition.name, stopReason: result.stopReason },
  };
}

function lastAssistantText(messages: readonly Message[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "assistant") continue;
    const text = (m as AssistantMessage).content
      .map((p) => (p.type === "text" ? p.text : ""))
      .join("")
      .trim();
    if (text) return text;
  }
  return "";
}
