import type {
  AnyTool,
  Questioner,
  SubagentRequest,
  ToolContext,
  ToolPresentation,
  ToolResult,
  UserQuestion,
} from "../tools/types.js";
import { errorMessage, isAbortError } from "../util/errors.js";
import { backendForCall } from "../backends/paths/approved-targets.js";
import type { GateCallRequest, ToolCallGate } from "../gate/call/procedure.js";
import type { TurnEventSink } from "./events.js";
import type { HookedToolCall } from "../gate/call/hooks.js";
import type { AgentHooks } from "./hooks.js";
import {
  emitSystemMessages,
  liveTerminalFor,
  outcome,
  progressSink,
  toDisplay,
  unwrapRawInput,
  type ToolCallRequest,
  type ToolRunOutcome,
} from "./tool-call-events.js";

export type { ToolCallRequest, ToolRunOutcome } from "./tool-call-events.js";

/** Everything a tool call needs from its turn. Built once per turn by the loop. */
export type ToolRunEnv = {
  tools: ReadonlyMap<string, AnyTool>;
  /** The parts of ToolContext shared by every call of the turn. */
  context: Omit<ToolContext, "toolCallId" | "signal" | "progress" | "callTool" | "runSubagent" | "askUser">;
  /** Shows ask_user questions; they wait their turn with permission dialogs. */
  questioner?: Questioner;
  /** Decides and carries out "may this run?" for every call of the turn (src/gate/call/procedure.ts). */
  gate: ToolCallGate;
  /** PostToolUse runs here; the gate runs the hooks before a call. */
  hooks: AgentHooks;
  /** The turn's events and reports (tool calls only ever send events, and the gate's `asking`). */
  emit: TurnEventSink;
  signal: AbortSignal;
  parentToolCallId?: string;
  /** A subagent's turn: the child session its permission requests belong to. */
  subagentSessionId?: string;
  /** Last step before a result reaches the model (large results are offloaded here). */
  finalizeResult?: (call: { toolCallId: string; tool: AnyTool }, result: ToolResult) => Promise<ToolResult>;
  /** Runs a subagent for the `task` call `parentToolCallId`. */
  runSubagent?: (request: SubagentRequest, parentToolCallId: string, signal: AbortSignal) => Promise<ToolResult>;
  newToolCallId: () => string;
};

/**
 * Announces a call to the editor with what it will do: its title and locations from the tool's own
 * presentation of `input` (the name only when the input is not valid, which `runToolCall` then
 * reports). Editors that print a call once when they first hear of it (acpx) show this line.
 */
export function announceToolCall(env: ToolRunEnv, toolCallId: string, name: string, input?: unknown): void {
  const tool = env.tools.get(name);
  const shown = tool && input !== undefined ? presentInput(env, tool, input) : undefined;
  env.emit({
    type: "tool_call",
    toolCallId,
    name,
    title: shown?.presentation.title ?? name,
    kind: tool?.kind ?? "other",
    status: "pending",
    locations: shown?.presentation.locations ?? [],
    rawInput: shown?.input ?? input ?? {},
    liveTerminal: liveTerminalFor(tool, env.context.executor, toolCallId, env.context.cwd),
    parentToolCallId: env.parentToolCallId,
  });
}

/** The tool's presentation of valid input (undefined for invalid input); a failing `present` shows the name. */
function presentInput(env: ToolRunEnv, tool: AnyTool, raw: unknown) {
  const validation = tool.validate(unwrapRawInput(raw));
  if (!validation.success) return undefined;
  return { input: validation.data, presentation: presentationOf(env, tool, validation.data) };
}

function presentationOf(env: ToolRunEnv, tool: AnyTool, input: unknown): ToolPresentation {
  try {
    return tool.present(input, env.context);
  } catch {
    return { title: tool.name };
  }
}

/**
 * One tool call from validation to result: present, hooks, rules and approval, execution, post hooks.
 * Never throws: every failure becomes a failed call with a message the model can act on.
 */
export async function runToolCall(
  env: ToolRunEnv,
  request: ToolCallRequest,
  announced: boolean,
): Promise<ToolRunOutcome> {
  const { toolCallId } = request;
  const parent = env.parentToolCallId;
  const fail = (text: string): ToolRunOutcome => {
    env.emit({
      type: "tool_call_update",
      toolCallId,
      status: "failed",
      content: [{ type: "text", text }],
      parentToolCallId: parent,
    });
    return outcome(request, { content: [{ type: "text", text }], isError: true }, false);
  };
  // A cancelled call still ends: without its final `failed` agent-shell kept it pending forever.
  const cancelled = (): ToolRunOutcome => {
    const content: ToolResult["content"] = [{ type: "text", text: "Cancelled by the user." }];
    env.emit({ type: "tool_call_update", toolCallId, status: "failed", content, parentToolCallId: parent });
    return outcome(request, { content, isError: true }, true);
  };

  const tool = env.tools.get(request.name);
  if (!tool) {
    if (!announced) announceToolCall(env, toolCallId, request.name);
    return fail(`Error: unknown tool '${request.name}'. Available tools: ${[...env.tools.keys()].join(", ")}`);
  }
  const validation = tool.validate(unwrapRawInput(request.input));
  if (!validation.success) {
    if (!announced) announceToolCall(env, toolCallId, request.name);
    env.emit({ type: "tool_call_update", toolCallId, rawInput: request.input, parentToolCallId: parent });
    return fail(`Error: invalid arguments for ${tool.name}:\n${validation.error}`);
  }
  const input = validation.data;
  const presentation = presentationOf(env, tool, input);
  showCall(env, toolCallId, tool, input, presentation, announced);

  const hooked: HookedToolCall = { toolCallId, tool, input };
  const signal = env.signal;
  const context = callContext(env, toolCallId, tool);
  const permitted = await env.gate.authorize(gateRequest(env, hooked, presentation, context));
  if (permitted.action === "cancelled") return cancelled();
  if (permitted.action === "refused")
    return permitted.reported
      ? outcome(request, { content: [{ type: "text", text: permitted.message }], isError: true }, false)
      : fail(permitted.message);

  env.emit({ type: "tool_call_update", toolCallId, status: "in_progress", parentToolCallId: parent });
  let result: ToolResult;
  try {
    // The call's backend opens exactly the real paths the gate decided on (a link swapped since is refused).
    result = await tool.execute(input, { ...context, backend: backendForCall(context.backend, permitted.approved) });
  } catch (error) {
    if (signal.aborted || isAbortError(error)) return cancelled();
    result = { content: [{ type: "text", text: `Error: ${errorMessage(error)}` }], isError: true };
  }
  if (signal.aborted) return cancelled();

  const failed = result.isError === true;
  const post = await env.hooks.postToolUse?.(hooked, result, failed, signal);
  emitSystemMessages(env, post?.systemMessages);
  if (post?.context?.length)
    result = { ...result, content: [...result.content, { type: "text", text: post.context.join("\n") }] };
  if (env.finalizeResult) result = await env.finalizeResult({ toolCallId, tool }, result);
  reportResult(env, toolCallId, result, failed);
  return outcome(request, result, false);
}

/** Tells the editor what a valid call will do: an update of the announced call, or the call itself. */
function showCall(
  env: ToolRunEnv,
  toolCallId: string,
  tool: AnyTool,
  input: unknown,
  presentation: ToolPresentation,
  announced: boolean,
): void {
  const locations = presentation.locations ?? [];
  const parentToolCallId = env.parentToolCallId;
  if (announced) {
    env.emit({
      type: "tool_call_update",
      toolCallId,
      title: presentation.title,
      locations,
      rawInput: input,
      parentToolCallId,
    });
    return;
  }
  env.emit({
    type: "tool_call",
    toolCallId,
    name: tool.name,
    title: presentation.title,
    kind: tool.kind,
    status: "pending",
    locations,
    rawInput: input,
    liveTerminal: liveTerminalFor(tool, env.context.executor, toolCallId, env.context.cwd),
    parentToolCallId,
  });
}

/** What the tool runs with: the turn's context plus this call's id, signal, progress and nested calls. */
function callContext(env: ToolRunEnv, toolCallId: string, tool: AnyTool): ToolContext {
  const signal = env.signal;
  return {
    ...env.context,
    toolCallId,
    signal,
    progress: progressSink(env, toolCallId),
    callTool: (name, nestedInput) => runNestedCall(env, toolCallId, name, nestedInput),
    // `task` is the subagent's own call; anything else (eval's task()) gets a task call of its own under it.
    ...(env.runSubagent
      ? {
          runSubagent: (req: SubagentRequest) =>
            tool.name === "task"
              ? env.runSubagent!(req, toolCallId, signal)
              : runNestedSubagent(env, toolCallId, req, signal),
        }
      : {}),
    ...(env.questioner
      ? {
          // The session's door: the question waits its turn with permission dialogs.
          askUser: (question: UserQuestion) => {
            const where = env.subagentSessionId
              ? { toolCallId, subagentSessionId: env.subagentSessionId }
              : { toolCallId };
            return env.questioner!.ask(question, where, signal);
          },
        }
      : {}),
  };
}

/** The call's end as the editor shows it; a background process stays in progress (its output and exit follow). */
function reportResult(env: ToolRunEnv, toolCallId: string, result: ToolResult, failed: boolean): void {
  const display = result.display ?? toDisplay(result.content);
  const parentToolCallId = env.parentToolCallId;
  const rawOutput = result.rawOutput !== undefined ? { rawOutput: result.rawOutput } : {};
  if (result.background) {
    env.emit({
      type: "tool_call_update",
      toolCallId,
      content: display,
      liveTerminal: { terminalId: toolCallId, cwd: env.context.cwd },
      ...rawOutput,
      parentToolCallId,
    });
    return;
  }
  env.emit({
    type: "tool_call_update",
    toolCallId,
    status: failed ? "failed" : "completed",
    content: display,
    ...(display.some((d) => d.type === "terminal") ? { transcript: toDisplay(result.content) } : {}),
    ...(result.locations ? { locations: result.locations } : {}),
    ...rawOutput,
    parentToolCallId,
  });
}

/**
 * A tool call made from code (eval's `tools.x()`), shown in the editor under the eval call. It goes
 * through the gate like any call: approving the eval approves running the code, not what it reaches.
 */
async function runNestedCall(
  env: ToolRunEnv,
  parentToolCallId: string,
  name: string,
  input: unknown,
): Promise<ToolResult> {
  const toolCallId = env.newToolCallId();
  const nested: ToolRunEnv = { ...env, parentToolCallId };
  const result = await runToolCall(nested, { toolCallId, name, input, modelCallId: toolCallId }, false);
  return result.result;
}

/** A subagent started from code (eval's task()): shown as its own `task` call under the caller. */
async function runNestedSubagent(
  env: ToolRunEnv,
  parentToolCallId: string,
  request: SubagentRequest,
  signal: AbortSignal,
): Promise<ToolResult> {
  const toolCallId = env.newToolCallId();
  const rawInput = { description: request.description, subagent_type: request.subagentType };
  const task = env.tools.get("task");
  let title = `${request.subagentType}: ${request.description.split("\n")[0]!.slice(0, 100)}`;
  try {
    if (task) title = task.present(rawInput, env.context).title;
  } catch {
    // keep the generic title
  }
  env.emit({
    type: "tool_call",
    toolCallId,
    name: "task",
    title,
    kind: task?.kind ?? "think",
    status: "in_progress",
    locations: [],
    rawInput,
    parentToolCallId,
  });
  const result = await env.runSubagent!(request, toolCallId, signal);
  if (!signal.aborted)
    env.emit({
      type: "tool_call_update",
      toolCallId,
      status: result.isError ? "failed" : "completed",
      content: result.display ?? toDisplay(result.content),
      parentToolCallId,
    });
  return result;
}

/** The call as the gate's procedure takes it. */
function gateRequest(
  env: ToolRunEnv,
  call: HookedToolCall,
  presentation: ToolPresentation,
  context: ToolContext,
): GateCallRequest {
  return {
    call,
    presentation,
    context,
    signal: env.signal,
    parentToolCallId: env.parentToolCallId,
    ...(env.subagentSessionId ? { subagentSessionId: env.subagentSessionId } : {}),
  };
}
