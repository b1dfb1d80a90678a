import type { Door } from "../gate/door/door.js";
import type { TurnResult } from "../agent/events.js";
import {
  promptText,
  runPromptTurn,
  titleFrom,
  type ClientSystemPrompt,
  type SessionStart,
  type SteeringInbox,
} from "../turn/index.js";
import type { PromptBlock } from "../tools/types.js";
import type { SessionMode } from "../gate/decide/modes.js";
import type { ExtensionHost } from "../extensions/index.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PersistentApprovalMemory } from "../gate/memory/approval-memory.js";
import type { Journal } from "../transcript/index.js";
import type { SessionBackground } from "./background.js";
import type { SessionEventSink, SessionServices } from "./services.js";
import type { SpendTracker } from "./spend.js";
import type { NoticeQueue } from "./notices.js";
import type { TurnObserver } from "./turn-observer.js";
import type { Workspace } from "./workspace/workspace.js";
import { persistSession, type PersistedSettings } from "./persistence.js";
import { createTurnGate } from "./turn-gate.js";
import { planDocument } from "./plan-document.js";

/**
 * What a prompt turn reads of its session, read at each step (mode, history and title as they are
 * then, like the session's own fields), and the title it sets after the first exchange.
 */
export type PromptTurnSession = {
  readonly id: string;
  readonly cwd: string;
  readonly mode: SessionMode;
  readonly systemPrompt: ClientSystemPrompt | undefined;
  readonly history: Message[];
  title: string | undefined;
  readonly extensions: ExtensionHost;
  readonly approvals: PersistentApprovalMemory;
  readonly background: SessionBackground;
  readonly spend: SpendTracker;
};

/** The session's own parts a prompt turn works with (the session keeps them private). */
export type PromptTurnParts = {
  readonly services: SessionServices;
  /** The session's door: every permission dialog and question of the turn is asked through it. */
  readonly door: Door;
  readonly journal: Journal;
  readonly notices: NoticeQueue;
  readonly sessionStart: SessionStart;
  readonly subagents: Map<string, AbortController>;
  readonly steering: SteeringInbox;
  readonly observe: TurnObserver;
  /** The session's workspace and model client (built on first use), and its settings to save. */
  readonly workspace: () => Promise<Workspace>;
  readonly model: () => Promise<ModelClient>;
  readonly settings: () => PersistedSettings;
};

export type PromptTurnInput = {
  blocks: readonly PromptBlock[];
  sink: SessionEventSink;
  signal: AbortSignal;
  /** The user message id of the prompt. */
  messageId: string;
};

/**
 * One prompt turn of a session: waits for its workspace, model and extensions, runs the turn, then
 * writes the plan document (plan mode) and the title (first exchange).
 */
export async function runSessionPrompt(
  session: PromptTurnSession,
  parts: PromptTurnParts,
  { blocks, sink, signal, messageId }: PromptTurnInput,
): Promise<TurnResult> {
  const { services } = parts;
  // Open before the workspace is awaited: a dev container's plan is a dialog of this turn.
  session.extensions.openDialogs(signal);
  const [workspace, model, { config }] = await Promise.all([parts.workspace(), parts.model(), services.config()]).catch(
    (error: unknown) => {
      session.extensions.endTurn();
      throw error;
    },
  );
  if (signal.aborted) return (session.extensions.endTurn(), { stopReason: "cancelled" });
  await persistSession(parts.journal, parts.settings());
  parts.notices.flush(sink);
  try {
    const extensions = await session.extensions.forTurn(signal, sink);
    if (signal.aborted) return { stopReason: "cancelled" };
    const isFirstExchange = !session.title;
    // As in Claude Code, SessionStart comes before the first UserPromptSubmit.
    const startContext = await parts.sessionStart.context(extensions.hooks, model.id, signal);
    const { result, submitted } = await runPromptTurn({
      // A remote workspace's tools and prompt see remote paths; the session keeps its local cwd for its records.
      session: {
        id: session.id,
        cwd: workspace.cwd,
        roots: workspace.roots,
        mode: session.mode,
        ...(session.systemPrompt ? { systemPrompt: session.systemPrompt } : {}),
      },
      blocks: workspace.place.mentions?.(blocks, session.cwd) ?? blocks,
      messageId,
      history: session.history,
      startContext,
      workspace,
      model,
      createModel: (spec) => services.models.create(spec),
      configuredProviders: () => services.models.configuredProviders(),
      config,
      extensions,
      interpreterSandboxes: session.extensions.sandboxes,
      now: services.now(),
      env: services.env,
      gate: createTurnGate(parts.door, session.approvals, workspace),
      questioner: parts.door.questioner,
      background: session.background.prepare(config.shell, workspace.shell),
      subagents: parts.subagents,
      ...(session.background.peers
        ? {
            peers: session.background.peers.forTurn({
              mcp: extensions.mcp,
              urls: parts.door.questioner?.urls === true,
            }),
          }
        : {}),
      spendLimit: () => session.spend.overLimit(config.cost.max_session_usd),
      steering: parts.steering,
      emit: (event) => parts.observe(event, sink, () => extensions.hooks),
      signal,
    });
    if (!submitted) return result;
    parts.sessionStart.delivered();
    if (session.mode === "plan" && result.stopReason === "end_turn" && !result.error && !signal.aborted) {
      const plansDir = config.plan.save_file ? services.paths.plansDir : undefined;
      const plan = await planDocument(session.history, { sessionId: session.id, plansDir, logger: services.logger });
      if (plan && !signal.aborted) parts.observe(plan, sink);
    }
    if (isFirstExchange && !signal.aborted) {
      session.title = titleFrom(promptText(blocks));
      sink({ type: "session_info", title: session.title, updatedAt: services.now().toISOString() });
    }
    return result;
  } finally {
    session.extensions.endTurn();
  }
}
