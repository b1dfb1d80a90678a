import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { isTurnReport, type AgentEvent, type TurnEvent, type TurnEventSink } from "../agent/events.js";
import { NO_HOOKS, type AgentHooks } from "../agent/hooks.js";
import type { ToolCallSeams } from "../agent/loop.js";
import { gateReports } from "../agent/tool-call-events.js";
import type { ToolRunEnv } from "../agent/tool-runner.js";
import { createTurnScope } from "../agent/turn-scope.js";
import type { PeerAgentConfig } from "../config/config-file.js";
import { createToolCallGate } from "../gate/call/procedure.js";
import { createDoor } from "../gate/door/door.js";
import { peerChangeRefusal } from "../gate/seams/peer-change.js";
import type { AnyTool, ToolResult } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { createTurnAbortController } from "../util/turn-signal.js";
import { createPeerDoor } from "./peer-door.js";
import { claudeGateMeta, createGateToolsHost, gatesTools, isGateToolCall } from "./gate-tools.js";
import { createPeerEditor, workspacePath, type PeerWireErrors } from "./peer-editor.js";
import type { PeerPool } from "./peer-pool.js";
import { withTimeout } from "./peer-connection.js";
import { createPeerUpdates, peerUsage } from "./peer-updates.js";
import { configureSession } from "./peer-session-setup.js";

// One `task` run on another ACP agent: a fresh session of the child (its process is the parent
// session's, started on first use), the task as its prompt, and its work streamed as our own child
// session (`subagent_started`, its events wrapped in `subagent_event`, `subagent_ended`), the same
// events our own subagents send, so the editor, the transcript, session/load and the session's spend
// treat it alike. Whatever goes wrong with the child (it cannot start, dies, speaks bad JSON, does
// not answer in time) ends this task with an error the parent's model can read; nothing else.

export type PeerTaskOptions = {
  name: string;
  config: PeerAgentConfig;
  pool: PeerPool;
  /** What the child is asked: the task (with any subagent file's instructions and answer format). */
  prompt: string;
  description: string;
  parentToolCallId: string;
  signal: AbortSignal;
  /** The parent turn's seams: its gate settings (mode, approver, rules), tool context, questioner. */
  toolCalls: ToolCallSeams;
  /** What the child may reach through us: the tools a subagent of the parent gets. */
  tools: readonly AnyTool[];
  hooks?: AgentHooks;
  emit: TurnEventSink;
  /** The child's working directory (session/new's): the session's directory on this machine. */
  cwd: string;
  /** The same directory as the session's tools see it (a container's or SSH host's path), when it differs. */
  workspaceCwd?: string;
  /** MCP servers to pass on (only when the agent's `pass_mcp_servers` is set). */
  mcpServers?: acp.McpServer[];
  /** What a refused or impossible fs/terminal request answers with (acp/errors.ts, injected). */
  errors: PeerWireErrors;
  /** Running subagents by child session id, so `session/cancel` on the child stops only it. */
  running?: Map<string, AbortController>;
};

/** After a cancel, how long the child gets to answer its prompt with `cancelled`. */
const CANCEL_GRACE_MS = 3000;

export async function runPeerTask(options: PeerTaskOptions): Promise<ToolResult> {
  const { name, config, signal, parentToolCallId } = options;
  const runId = randomUUID();
  const child = createTurnAbortController();
  const abortChild = () => child.abort();
  signal.addEventListener("abort", abortChild, { once: true });
  options.running?.set(runId, child);
  const emit = options.emit;
  const announced = !signal.aborted;
  if (announced)
    emit({
      type: "subagent_started",
      sessionId: runId,
      toolCallId: parentToolCallId,
      title: `${name}: ${options.description.split("\n")[0]!.slice(0, 80)}`,
      description: options.description,
      prompt: options.prompt,
    });
  // The child's events, until it is cancelled (then the editor owns what it showed).
  const emitChild = (event: AgentEvent) => {
    if (!child.signal.aborted) emit({ type: "subagent_event", sessionId: runId, event });
  };
  const emitTurn: TurnEventSink = (event: TurnEvent) => (isTurnReport(event) ? emit(event) : emitChild(event));
  const hooks = options.hooks ?? NO_HOOKS;
  // The session's door (a door of this run's own where the turn has only an approver, as headless
  // runs and the bench do): the child's questions and our calls' dialogs take turns at the same one.
  const given = options.toolCalls.gate;
  const door = "door" in given ? given.door : createDoor({ approver: given.approver });
  const settings = { ...given, door };
  const gate = createToolCallGate(settings, hooks, gateReports(emitTurn));
  let ids = 0;
  const env: ToolRunEnv = {
    tools: new Map(options.tools.map((t) => [t.name, t])),
    context: { ...options.toolCalls.context, turn: createTurnScope(runId) },
    ...(options.toolCalls.questioner ? { questioner: options.toolCalls.questioner } : {}),
    gate,
    hooks,
    emit: emitTurn,
    signal: child.signal,
    parentToolCallId,
    subagentSessionId: runId,
    newToolCallId: () => `${runId}/deep-acp-${++ids}`,
  };
  const paths = options.workspaceCwd ? { local: options.cwd, workspace: options.workspaceCwd } : undefined;
  const refusals: string[] = [];
  const deniedWrite = (named: readonly string[]) =>
    peerChangeRefusal(
      settings.policy,
      named.map((path) => workspacePath(resolve(options.cwd, path), paths)),
    );
  const peerDoor = createPeerDoor({
    name,
    mode: settings.mode,
    door,
    runId,
    parentToolCallId,
    signal: child.signal,
    deniedWrite,
    refused: (reason) => refusals.push(reason),
  });
  let terminalText: (id: string) => string | undefined = () => undefined;
  let servesOurTools = false;
  const updates = createPeerUpdates({
    runId,
    parentToolCallId,
    emit: emitChild,
    terminalText: (id) => terminalText(id),
    ours: (call) => servesOurTools && isGateToolCall(call),
  });
  const editor = createPeerEditor({
    name,
    env,
    door: peerDoor,
    update: (u) => updates.apply(u),
    errors: options.errors,
    ...(paths ? { paths } : {}),
  });
  terminalText = editor.terminalText;

  let outcome: { stopReason: acp.StopReason; usage?: acp.Usage | null } | { error: string } | "cancelled";
  let unhost = () => undefined as void;
  let releaseGateTools = () => undefined as void;
  try {
    const connection = await options.pool.connection(name, config);
    if (child.signal.aborted) throw new CancelledError();
    const mcpServers = [...(options.mcpServers ?? [])];
    let meta: Record<string, unknown> | undefined;
    if (gatesTools(config, connection.initialize)) {
      const host = createGateToolsHost({ env, cwd: options.cwd, place: (path) => workspacePath(path, paths) });
      const served = (await connection.gateTools()).register(host);
      releaseGateTools = served.release;
      mcpServers.push(served.server);
      meta = claudeGateMeta();
      servesOurTools = true;
    }
    const session = await withTimeout(
      connection.newSession({ cwd: options.cwd, mcpServers, ...(meta ? { _meta: meta } : {}) }),
      config.timeout_seconds * 1000,
      `it did not answer session/new within ${config.timeout_seconds} s`,
    );
    unhost = connection.host(session.sessionId, editor);
    for (const warning of await configureSession(connection, session, config))
      emitChild({ type: "notice", severity: "warning", title: warning });
    outcome = await promptChild(connection, session.sessionId, options.prompt, config, child.signal);
  } catch (error) {
    outcome = error instanceof CancelledError || child.signal.aborted ? "cancelled" : { error: peerErrorText(error) };
  } finally {
    signal.removeEventListener("abort", abortChild);
    options.running?.delete(runId);
    editor.close();
    releaseGateTools();
  }
  unhost();
  const usage = typeof outcome === "object" && "stopReason" in outcome ? peerUsage(outcome.usage) : undefined;
  const costUsd = updates.costUsd();
  if (usage || costUsd !== undefined) {
    const tokens = usage ?? { inputTokens: 0, outputTokens: 0 };
    // The child's own context meter when it reports one; else its tokens, as a full window.
    const window = updates.window() ?? { used: tokens.inputTokens + tokens.outputTokens, size: 0 };
    emit({
      type: "subagent_event",
      sessionId: runId,
      event: {
        type: "usage",
        used: window.used,
        size: Math.max(window.size, window.used),
        usage: tokens,
        ...(costUsd !== undefined ? { costUsd } : {}),
      },
    });
  }
  if (announced) {
    const ended =
      outcome === "cancelled" ? "cancelled" : "error" in outcome ? "end_turn" : stopReasonOf(outcome.stopReason);
    const error = typeof outcome === "object" && "error" in outcome ? outcome.error : undefined;
    emit({ type: "subagent_ended", sessionId: runId, stopReason: ended, ...(error ? { error } : {}) });
  }
  // A child that ends its own turn as cancelled when our rules refused its change (codex-acp offers
  // only "No, provide feedback" for a patch, which stops its turn): the parent's model reads why.
  if (typeof outcome === "object" && "stopReason" in outcome && outcome.stopReason === "cancelled" && refusals.length)
    return {
      content: [
        {
          type: "text",
          text: `Error: the ${name} agent stopped after deep-acp refused its change: ${refusals.join("; ")}${updates.answer() ? `\n\n${updates.answer()}` : ""}`,
        },
      ],
      isError: true,
    };
  if (outcome === "cancelled" || ("stopReason" in outcome && outcome.stopReason === "cancelled"))
    return { content: [{ type: "text", text: "Cancelled by the user." }], isError: true };
  if ("error" in outcome)
    return { content: [{ type: "text", text: `Error: the ${name} agent failed: ${outcome.error}` }], isError: true };
  const answer = updates.answer() || `(${name} ended with ${outcome.stopReason} and no answer)`;
  return {
    content: [{ type: "text", text: answer }],
    display: [{ type: "text", text: answer }],
    rawOutput: { subagentType: name, agent: name, stopReason: outcome.stopReason },
  };
}

class CancelledError extends Error {}

/** The child's error as the parent's model reads it: its message and, for a JSON-RPC error, its data. */
function peerErrorText(error: unknown): string {
  const data = (error as { data?: unknown } | null)?.data;
  const detail = data === undefined || data === null ? "" : `: ${JSON.stringify(data).slice(0, 600)}`;
  return `${errorMessage(error)}${detail}`;
}

/** The prompt, until it is answered, the child is gone, the timeout passes, or the task is cancelled. */
async function promptChild(
  connection: Awaited<ReturnType<PeerPool["connection"]>>,
  sessionId: string,
  text: string,
  config: PeerAgentConfig,
  signal: AbortSignal,
): Promise<{ stopReason: acp.StopReason; usage?: acp.Usage | null } | "cancelled"> {
  const answered = connection.prompt({ sessionId, prompt: [{ type: "text", text }] });
  answered.catch(() => undefined);
  const timeoutMs = config.timeout_seconds * 1000;
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<"timeout" | "cancelled">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), timeoutMs);
    onAbort = () => resolve("cancelled");
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    const first = await Promise.race([answered, stopped]);
    if (typeof first === "object") return first;
    connection.cancel(sessionId);
    // Its answer to the cancel (or the grace running out); the task is over either way.
    await Promise.race([answered.catch(() => undefined), new Promise((r) => setTimeout(r, CANCEL_GRACE_MS))]);
    if (first === "cancelled") return "cancelled";
    throw new Error(
      `it did not finish within ${config.timeout_seconds} s ([agents] timeout_seconds); it was cancelled`,
    );
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener("abort", onAbort);
  }
}

function stopReasonOf(
  reason: acp.StopReason,
): "end_turn" | "max_tokens" | "max_turn_requests" | "refusal" | "cancelled" {
  return reason === "max_tokens" || reason === "max_turn_requests" || reason === "refusal" || reason === "cancelled"
    ? reason
    : "end_turn";
}
