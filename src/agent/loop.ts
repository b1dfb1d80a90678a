import { usageCostUsd } from "../model/catalog/pricing.js";
import { randomUUID } from "node:crypto";
import type { AssistantMessage, Message, ModelClient, ToolCallPart, Usage, UserMessage } from "../model/types.js";
import type { AnyTool, ToolResult } from "../tools/types.js";
import type { LimitHit } from "../model/limits.js";
import { createToolCallGate, type GateSettings } from "../gate/call/procedure.js";
import { streamModel } from "./stream-model.js";
import type { AgentEvent, AgentEventSink, TurnEventSink, TurnResult, UserEntry } from "./events.js";
import { NO_HOOKS, type AgentHooks } from "./hooks.js";
import { gateReports } from "./tool-call-events.js";
import { announceToolCall, runToolCall, type ToolRunEnv } from "./tool-runner.js";
import { createTurnScope, type OwnedTurnScope } from "./turn-scope.js";

/** After a cancel, tools get this long to wind down before the turn answers `cancelled` anyway. */
const CANCEL_GRACE_MS = 3000;

/** What the model is asked with, and how often in one turn. */
export type TurnModel = {
  client: ModelClient;
  system: string;
  tools: readonly AnyTool[];
  /** Model requests allowed in this turn. */
  maxRequests: number;
  maxOutputTokens?: number;
};

/**
 * The seams every tool call of the turn passes through: before it runs (the gate's inputs: mode,
 * approvals, file rules) and after (finalizeResult), plus what it runs with.
 */
export type ToolCallSeams = Pick<ToolRunEnv, "questioner" | "finalizeResult" | "runSubagent"> & {
  /** What the gate decides every call of the turn with (mode, approver, remembered answers, rules). */
  gate: GateSettings;
  /** Shared tool context for the turn (backend, executor, roots, limits). */
  context: Omit<ToolRunEnv["context"], "turn">;
};

/**
 * The turn's collaborators, each asked a question and answering it (the model, the gate's settings,
 * hooks, compaction, steering, the spend limit). What the turn has to say goes up one way: `emit`.
 */
export type TurnOptions = {
  model: TurnModel;
  toolCalls: ToolCallSeams;
  /**
   * Asked before each model call (compaction). A different list means "this is the conversation
   * now": the turn adopts it and reports `history_replaced`.
   */
  compact?: (messages: Message[], signal: AbortSignal) => Promise<Message[]>;
  hooks?: AgentHooks;
  /** Checked before each model request: a message stops the turn (the session's spend limit). */
  spendLimit?: () => string | undefined;
  /**
   * Steering: user messages sent while the turn runs, taken at each safe point (after a message's
   * tool calls, and when the model would end the turn) and given to the model with the next
   * request, each reported as a `user_message`.
   */
  steering?: { pending(): boolean; take(signal: AbortSignal): Promise<UserEntry[]> };
  signal: AbortSignal;
  /**
   * Everything the turn reports, in order: its events (none after the signal aborts) and the
   * conversation as it grows (`message`, `user_message`: also after an abort, so the record of a
   * cancelled turn still answers every call it started).
   */
  emit: TurnEventSink;
  /** Set for a subagent's turn: the `task` call it runs under (its tool calls name it). */
  parentToolCallId?: string;
  /** Set for a subagent's turn: its child session, named by its permission requests. */
  subagentSessionId?: string;
  newId?: () => string;
};

/**
 * Runs one prompt turn: model request, tool calls (in parallel), repeat until the model stops.
 * Never throws. After the signal aborts nothing more is emitted, and the turn resolves `cancelled`
 * with every started tool call given a result so the conversation stays valid for the next turn.
 */
export async function runTurn(
  history: readonly Message[],
  prompt: UserMessage | UserEntry,
  options: TurnOptions,
): Promise<TurnResult> {
  const { signal } = options;
  const report = options.emit;
  const model = options.model.client;
  const newId = options.newId ?? (() => randomUUID());
  // Read through a flag, not `signal.aborted`: every AbortSignal has its own hidden class in Node 20,
  // so a check on it in code that runs per streamed chunk (this closure, inlined into streamModel)
  // throws that optimised code away at the start of every turn, and V8 recompiles it each time.
  // Registered before anything of the turn can listen, so every listener that can reach this closure
  // already sees the flag set.
  let aborted = signal.aborted;
  const onAbort = () => void (aborted = true);
  const emit: TurnEventSink = (event) => {
    if (!aborted) options.emit(event);
  };
  const turn: OwnedTurnScope = createTurnScope(newId());
  const messages: Message[] = [...history];
  const record = (message: Message, messageId?: string) => {
    messages.push(message);
    report({ type: "message", message, ...(messageId ? { messageId } : {}) });
  };
  const recordUser = (entry: UserEntry) => {
    messages.push(entry.message);
    report({ type: "user_message", ...entry });
  };
  if ("role" in prompt) record(prompt);
  else recordUser(prompt);

  /** The agent's own message: shown, and kept in the conversation. */
  const say = (text: string) => {
    const messageId = newId();
    emit({ type: "message_chunk", messageId, text });
    record({ role: "assistant", content: [{ type: "text", text }] }, messageId);
  };
  const env = toolRunEnv(options, turn, emit, newId);

  let requests = 0;
  signal.addEventListener("abort", onAbort, { once: true });
  const takeSteering = async () => {
    for (const entry of (await options.steering?.take(signal)) ?? []) recordUser(entry);
  };
  try {
    for (;;) {
      if (signal.aborted) return { stopReason: "cancelled" };
      if (options.steering?.pending()) await takeSteering();
      if (signal.aborted) return { stopReason: "cancelled" };
      if (requests >= options.model.maxRequests) return { stopReason: "max_turn_requests" };
      const overBudget = options.spendLimit?.();
      if (overBudget) {
        emit({ type: "message_chunk", messageId: newId(), text: overBudget });
        return { stopReason: "end_turn" };
      }
      requests++;
      if (options.compact && (await compact(options, messages, signal)) === "cancelled")
        return { stopReason: "cancelled" };

      const settings = { ...options.model, signal, parentToolCallId: options.parentToolCallId };
      const streamed = await streamModel(model, messages, settings, env, emit, newId);
      if (streamed.kind === "aborted") {
        if (streamed.partial) record(streamed.partial, streamed.messageId);
        return { stopReason: "cancelled" };
      }
      if (streamed.kind === "error") {
        if (streamed.partial) record(streamed.partial, streamed.messageId);
        const limit = streamed.limit;
        if (!limit || options.parentToolCallId)
          return { stopReason: "end_turn", error: limit?.message ?? streamed.message };
        // A usage limit is not a failure of the session: say which limit and when it lifts, and end
        // the turn normally, so the editor shows an answer and the next prompt simply works.
        if (limit.pool) emit({ type: "quota", pool: limit.pool });
        say(limitReply(limit));
        return { stopReason: "end_turn" };
      }
      const { message, stopReason, usage, toolIds, announced } = streamed;
      record(message, streamed.messageId);
      emit(usageEvent(usage, model));

      const calls = message.content.filter((p): p is ToolCallPart => p.type === "tool_call");
      // A message sent while the model answered: the turn goes on with it instead of ending.
      if (calls.length === 0 && stopReason === "end_turn" && options.steering?.pending()) continue;
      if (calls.length === 0) {
        const ended = await endOrContinue(options, message, stopReason, emit, record);
        if (ended === "continue") continue;
        return ended;
      }

      const outcomes = await runCalls(env, calls, toolIds, announced, signal);
      for (const outcome of outcomes) record(outcome.message);
      if (signal.aborted || outcomes.some((o) => o.cancelled)) return { stopReason: "cancelled" };
      const closing = outcomes
        .map((o) => (o.result as ToolResult).endTurnWith)
        .filter((text): text is string => text !== undefined);
      if (closing.length > 0) {
        // The user answers with their next prompt: say it as the agent's message and stop here.
        say(closing.join("\n\n"));
        return { stopReason: "end_turn" };
      }
    }
  } finally {
    signal.removeEventListener("abort", onAbort);
    turn.end();
  }
}

/** What every tool call of the turn runs with, the gate for the turn's calls included. */
function toolRunEnv(options: TurnOptions, turn: OwnedTurnScope, emit: TurnEventSink, newId: () => string): ToolRunEnv {
  const hooks = options.hooks ?? NO_HOOKS;
  const { gate: settings, ...seams } = options.toolCalls;
  return {
    ...seams,
    tools: new Map(options.model.tools.map((t) => [t.name, t])),
    context: { ...options.toolCalls.context, turn },
    hooks,
    gate: createToolCallGate(settings, hooks, gateReports(emit)),
    emit,
    signal: options.signal,
    parentToolCallId: options.parentToolCallId,
    subagentSessionId: options.subagentSessionId,
    newToolCallId: newId,
  };
}

/** Compaction before a model request; a different list is the conversation from now on. */
async function compact(
  options: TurnOptions,
  messages: Message[],
  signal: AbortSignal,
): Promise<"cancelled" | undefined> {
  const compacted = await options.compact!(messages, signal);
  if (signal.aborted) return "cancelled";
  if (compacted !== messages) {
    messages.splice(0, messages.length, ...compacted);
    options.emit({ type: "history_replaced", messages: [...compacted] });
  }
  return undefined;
}

function usageEvent(usage: Usage, model: ModelClient): AgentEvent {
  const costUsd = usageCostUsd(usage, model.pricing);
  return {
    type: "usage",
    used: usage.inputTokens + usage.outputTokens + (usage.cacheReadTokens ?? 0) + (usage.cacheWriteTokens ?? 0),
    size: model.contextWindow,
    usage,
    ...(costUsd !== undefined ? { costUsd } : {}),
  };
}

/** The model answered without tool calls: the turn ends, unless a Stop hook continues it. */
async function endOrContinue(
  options: TurnOptions,
  message: AssistantMessage,
  stopReason: string,
  emit: AgentEventSink,
  record: (message: Message) => void,
): Promise<TurnResult | "continue"> {
  if (stopReason === "max_tokens") return { stopReason: "max_tokens" };
  if (stopReason === "refusal") return { stopReason: "refusal" };
  const signal = options.signal;
  const stop = await options.hooks?.stop?.({ lastAssistantText: textOf(message) }, signal);
  for (const text of stop?.systemMessages ?? []) emit({ type: "notice", severity: "info", title: text });
  if (stop?.continueWith && !signal.aborted) {
    record({ role: "user", content: [{ type: "text", text: stop.continueWith }] });
    return "continue";
  }
  if (stop?.warning) emit({ type: "notice", severity: "warning", title: stop.warning });
  options.emit({ type: "notification", kind: "idle_prompt", message: "deep-acp is waiting for your input" });
  return { stopReason: "end_turn" };
}

async function runCalls(
  env: ToolRunEnv,
  calls: ToolCallPart[],
  toolIds: Map<string, string>,
  announced: ReadonlySet<string>,
  signal: AbortSignal,
) {
  const singletons = new Map<string, number>();
  for (const call of calls) {
    if (env.tools.get(call.name)?.singletonPerMessage) singletons.set(call.name, (singletons.get(call.name) ?? 0) + 1);
  }
  const pending = calls.map((call) => {
    const known = toolIds.get(call.id);
    const toolCallId = known ?? env.newToolCallId();
    const shown = announced.has(toolCallId);
    const request = { toolCallId, name: call.name, input: call.input, modelCallId: call.id };
    if ((singletons.get(call.name) ?? 0) > 1) {
      const text = `Error: ${call.name} may be called only once per message; send one call with the complete list.`;
      if (!shown) announceToolCall(env, toolCallId, call.name);
      env.emit({
        type: "tool_call_update",
        toolCallId,
        status: "failed",
        content: [{ type: "text", text }],
        parentToolCallId: env.parentToolCallId,
      });
      const result = { content: [{ type: "text" as const, text }], isError: true };
      return Promise.resolve({
        message: { role: "tool" as const, toolCallId: call.id, toolName: call.name, ...result },
        result,
        cancelled: false,
      });
    }
    return runToolCall(env, request, shown);
  });
  if (!signal.aborted) {
    const all = Promise.all(pending);
    const aborted = new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    const first = await Promise.race([all.then(() => "done" as const), aborted.then(() => "aborted" as const)]);
    if (first === "done") return all;
  }
  // Cancelled: give tools a moment to kill their processes, then answer for the ones still hanging.
  const settled = await Promise.race([Promise.all(pending), delay(CANCEL_GRACE_MS).then(() => null)]);
  if (settled) return settled;
  const result = { content: [{ type: "text" as const, text: "Cancelled by the user." }], isError: true };
  return calls.map((call) => ({
    message: { role: "tool" as const, toolCallId: call.id, toolName: call.name, ...result },
    result,
    cancelled: true,
  }));
}

function limitReply(limit: LimitHit): string {
  return `${limit.message}\n\nThe conversation is kept: send your message again${limit.resetsAt ? " once the limit has reset" : " in a little while"}.`;
}

function textOf(message: AssistantMessage): string {
  return message.content.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
