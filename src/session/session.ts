import { isThoughtLevel, thoughtSupport, type ThoughtLevel } from "../model/catalog/thought-level.js";
import { createSessionBackground, type SessionBackground } from "./background.js";
import { randomUUID } from "node:crypto";
import type { Door } from "../gate/door/door.js";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import { compactNow, createSessionStart, type ClientSystemPrompt, type SessionStart } from "../turn/index.js";
import type { PromptBlock } from "../tools/types.js";
import { createSpendTracker, type SpendTracker } from "./spend.js";
import { isSessionMode, type SessionMode } from "../gate/decide/modes.js";
import type { ExtensionHost } from "../extensions/index.js";
import { findProjectRoot } from "../config/project-root.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PlanEntry } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { RewindError } from "./errors.js";
import type { PersistentApprovalMemory } from "../gate/memory/approval-memory.js";
import { createJournal, type Journal, type SessionRecord } from "../transcript/index.js";
import type { RewindDone, RewindTarget } from "../transcript/index.js";
import type { SessionEventSink, SessionOptions, SessionServices } from "./services.js";
import {
  applyWorkspaceChanges,
  describeWorkspaceChanges,
  nothingApplied,
  type ApplyOutcome,
} from "./workspace/changes-commands.js";
import { createTurnQueue } from "./turn-queue.js";
import { createSteeringInbox, type SteeringAnswer } from "./steering.js";
import type { Workspace } from "./workspace/workspace.js";
import type { WorkspaceSlot } from "./workspace/workspace-slot.js";
import { createNoticeQueue } from "./notices.js";
import { persistSession, recordCompaction, saveTurnEnd, type PersistedSettings } from "./persistence.js";
import { createSessionDoor, createSessionExtensions, createSessionWorkspace } from "./session-wiring.js";
import { reviewThroughDoor } from "../gate/seams/through-door.js";
import { sessionContextReport } from "./context-report.js";
import { createRestoreScope } from "./turn-gate.js";
import { runSessionPrompt, type PromptTurnParts } from "./prompt-turn.js";
import { createSessionOutlet, createTurnObserver, type TurnObserver } from "./turn-observer.js";

/**
 * One conversation: its settings, its history, the turn that may be running, and its transcript on
 * disk. Turns never interleave: a prompt that arrives during a turn waits for it.
 */
export class Session {
  readonly id: string;
  readonly cwd: string;
  readonly roots: readonly string[];
  readonly projectRoot: string;
  mode: SessionMode;
  modelSpec: string;
  /** Undefined: the model's default. */
  thoughtLevel: ThoughtLevel | undefined;
  title: string | undefined;
  /** The editor's instructions for the session (ACP `systemPrompt`); saved with it. */
  readonly systemPrompt: ClientSystemPrompt | undefined;
  updatedAt: Date;
  plan: PlanEntry[] = [];
  history: Message[] = [];
  readonly approvals: PersistentApprovalMemory;

  private readonly services: SessionServices;
  /** Every question to the human goes through it: one dialog at a time, answered on the asker's call. */
  private readonly door: Door;
  /** Processes started with execute {background: true}; they outlive turns, not the session. */
  readonly background: SessionBackground;
  private readonly workspace: WorkspaceSlot;
  /** What the session's model requests have cost (usage_update `cost`, /cost, the spend limit). */
  readonly spend: SpendTracker;
  private lastUsed: number | undefined;
  /** Whether an editor can answer trust questions (headless cannot). */
  private model: Promise<ModelClient> | undefined;
  private readonly turns = createTurnQueue({ onSettled: () => (this.updatedAt = this.services.now()) });
  /**
   * Messages for the running turn (steering), and the user message id of that turn while it is a
   * prompt's: only prompt turns take them, never /compact or other queued work.
   */
  private readonly steering = createSteeringInbox();
  private runningPrompt: string | undefined;
  private readonly journal: Journal;
  /** Skills, memory, subagents, plugins, hooks and MCP of this session (commands read them). */
  readonly extensions: ExtensionHost;
  private readonly sessionStart: SessionStart;
  /** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
  private readonly notices = createNoticeQueue();
  /** The running turn's subagents, by child session id. */
  private readonly subagents = new Map<string, AbortController>();
  /** Where every event and report of the session's turns goes (transcript, conversation, spend, editor). */
  private readonly observe: TurnObserver;

  constructor(options: SessionOptions) {
    this.id = options.id;
    this.cwd = options.cwd;
    this.roots = [options.cwd, ...(options.additionalDirectories ?? []).filter((d) => d !== options.cwd)];
    this.projectRoot = findProjectRoot(options.cwd);
    const restored = options.restored;
    this.mode = restored?.mode && isSessionMode(restored.mode) ? restored.mode : (options.mode ?? "default");
    this.modelSpec = restored?.model ?? options.modelSpec;
    this.thoughtLevel = isThoughtLevel(restored?.thoughtLevel) ? restored.thoughtLevel : undefined;
    this.spend = createSpendTracker(restored?.spend);
    this.lastUsed = restored?.usage?.used;
    this.history = restored?.history ?? [];
    this.plan = restored?.plan ?? [];
    this.title = restored?.title;
    this.systemPrompt = options.systemPrompt;
    this.services = options.services;
    this.updatedAt = options.services.now();
    this.approvals = options.services.approvalMemory(this.projectRoot);
    this.journal = createJournal({
      store: options.services.sessions,
      sessionId: this.id,
      logger: options.services.logger,
      persisted: options.persisted ?? false,
    });
    this.sessionStart = createSessionStart(this.journal.persisted ? "resume" : "startup");
    this.observe = createTurnObserver({
      journal: this.journal,
      spend: this.spend,
      conversation: {
        append: (message) => this.history.push(message),
        replace: (messages) => this.replaceHistory(messages),
      },
      planChanged: (entries) => (this.plan = entries),
      contextUsed: (tokens) => (this.lastUsed = tokens),
    });
    const outlet = createSessionOutlet(options);
    this.door = createSessionDoor(options, outlet);
    this.background = createSessionBackground({ sink: outlet.later, peers: options });
    this.extensions = createSessionExtensions(options, this, outlet, this.door);
    this.workspace = createSessionWorkspace(options, this, this.notices, outlet, this.door);
  }

  /** The remote or container workspace and its health (connects if needed), for /status; undefined for a local session. */
  workspaceStatus(): Promise<{ label: string; text: string } | undefined> {
    return this.workspace.workspaceStatus();
  }

  get additionalDirectories(): string[] {
    return this.roots.slice(1);
  }

  get isRunning(): boolean {
    return this.turns.running;
  }

  /** Whether the session is on disk (after its first prompt), so it can be closed and opened again. */
  get isStored(): boolean {
    return this.journal.persisted;
  }

  /** Starts the slow parts (config, backends, model client) in the background; prompts await them. */
  warmUp(): void {
    void this.ensureWorkspace().catch((error) =>
      this.services.logger.warn(`session ${this.id}: workspace setup failed`, error),
    );
    void this.ensureModel().catch(() => undefined);
    void this.extensions
      .start()
      .catch((error) => this.services.logger.warn(`session ${this.id}: loading extensions failed`, error));
  }

  /** /reload: re-reads skills, memory, subagents, plugins, hooks, MCP config and config.toml. */
  async reload(): Promise<string> {
    await this.turns.stop();
    await this.approvals.reload();
    const summary = await this.extensions.reload();
    this.workspace.reset();
    return summary;
  }

  /** Runs a prompt turn (after any turn already running). `messageId` names the user message. */
  async prompt(
    blocks: readonly PromptBlock[],
    sink: SessionEventSink,
    messageId: string = randomUUID(),
  ): Promise<TurnResult> {
    return this.turns.run(async (signal) => {
      let result: TurnResult;
      this.runningPrompt = messageId;
      try {
        result = await runSessionPrompt(this, this.promptParts(), { blocks, sink, signal, messageId });
      } catch (error) {
        result = signal.aborted ? { stopReason: "cancelled" } : { stopReason: "end_turn", error: errorMessage(error) };
      } finally {
        this.runningPrompt = undefined;
      }
      // What the turn did not reach runs as turns of its own (or not at all after a cancel).
      this.steering.release(result.stopReason === "cancelled" ? "cancelled" : "left");
      await saveTurnEnd(this.journal, this.workspace, result, this.settings);
      return result;
    });
  }

  /**
   * Steering: gives `blocks` to the running prompt turn at its next safe point. `left`: no prompt
   * turn runs (or it ended first), so prompt() them; `cancelled`: the turn was cancelled before
   * taking them. `turn` names the turn they were offered to (its user message id).
   */
  async steer(blocks: readonly PromptBlock[], messageId: string): Promise<SteeringAnswer> {
    const turn = this.runningPrompt;
    if (turn === undefined) return { outcome: "left" };
    return { outcome: await this.steering.add(blocks, messageId), turn };
  }

  /**
   * `/compact`: summarizes the older part of the conversation now. Runs like a turn (queued,
   * cancellable). Resolves with a line for the user.
   */
  async compact(instructions: string, sink: SessionEventSink): Promise<TurnResult & { message?: string }> {
    return this.turns.run(async (signal) => {
      const [workspace, model, { config }] = await Promise.all([
        this.ensureWorkspace(),
        this.ensureModel(),
        this.services.config(),
      ]);
      await persistSession(this.journal, this.settings);
      const hooks = await this.extensions.hooks();
      const emit = (event: AgentEvent) => this.observe(event, sink);
      const compacted = await compactNow({
        sessionId: this.id,
        workspace,
        model,
        config,
        hooks,
        emit,
        history: this.history,
        instructions,
        signal,
      });
      if (compacted.messages) {
        this.replaceHistory(compacted.messages);
        await this.journal.flush();
      }
      return compacted.outcome;
    });
  }

  /** session/set_title: the editor's title, saved now; no title is generated after it. */
  async rename(title: string): Promise<void> {
    this.title = title;
    if (this.isStored) await this.services.sessions.updateMeta(this.id, { title });
  }

  /** `/changes`: what the session changed in its copy-mode container and has not applied. */
  async workspaceChanges(): Promise<string> {
    const [workspace, { config }] = await Promise.all([this.ensureWorkspace(), this.services.config()]);
    return describeWorkspaceChanges(workspace, config);
  }

  /**
   * `/apply` (and `-n --apply`): writes the container's changes to the host project, after the
   * editor's dialogs at the door (headless: the ordinary changes only). Runs like a turn: queued, cancellable.
   */
  async applyWorkspaceChanges(sink: SessionEventSink, options: { headless?: boolean } = {}): Promise<ApplyOutcome> {
    const result = await this.turns.run(async (signal) => {
      const [workspace, { config }] = await Promise.all([this.ensureWorkspace(), this.services.config()]);
      const door = options.headless ? undefined : reviewThroughDoor(this.door);
      const hooks = () => this.extensions.hooks();
      return applyWorkspaceChanges({ workspace, config, signal, sink, hooks, approvals: this.approvals, door });
    });
    return "text" in result ? result : { ...nothingApplied(), text: "Cancelled.", stopReason: "cancelled" };
  }

  /** Cancels the running turn and every prompt queued behind it. */
  cancel(): void {
    this.steering.release("cancelled");
    this.turns.cancel();
  }

  /** Cancels one running subagent (its task call fails; the turn goes on). False: no such subagent. */
  cancelSubagent(sessionId: string): boolean {
    const child = this.subagents.get(sessionId);
    child?.abort();
    return child !== undefined;
  }

  async setMode(mode: SessionMode): Promise<void> {
    this.mode = mode;
    this.journal.record({ t: "mode", mode });
  }

  async setModel(spec: string): Promise<void> {
    // A level the new model does not have falls back to that model's default.
    const level =
      this.thoughtLevel && thoughtSupport(spec)?.levels.includes(this.thoughtLevel) ? this.thoughtLevel : undefined;
    const model = this.services.models.create(spec, level);
    await model; // throws for an unusable spec, leaving the session unchanged
    this.modelSpec = spec;
    this.model = model;
    this.thoughtLevel = level;
    this.journal.record({ t: "model", model: spec });
  }

  /** The `thought_level` option; throws for a level the current model does not have. */
  async setThoughtLevel(level: ThoughtLevel): Promise<void> {
    if (!thoughtSupport(this.modelSpec)?.levels.includes(level))
      throw new Error(`${this.modelSpec} has no thought level "${level}"`);
    const model = this.services.models.create(this.modelSpec, level);
    await model;
    this.thoughtLevel = level;
    this.model = model;
    this.journal.record({ t: "thought_level", level });
  }

  /** Markdown for /cost. */
  async costReport(): Promise<string> {
    const { config } = await this.services.config();
    return this.spend.report(config.cost.max_session_usd, this.modelSpec);
  }

  /** Markdown for /context: what fills the context window, by part. */
  async contextReport(): Promise<string> {
    const { id, mode, systemPrompt, history, lastUsed, services, extensions } = this;
    const [workspace, model] = [this.ensureWorkspace(), this.ensureModel()];
    return sessionContextReport({ id, mode, systemPrompt, history, lastUsed, services, extensions, workspace, model });
  }

  /** Forgets the conversation (the editor keeps showing it); settings and remembered choices stay. */
  async clear(): Promise<void> {
    await this.turns.stop();
    this.history = [];
    this.plan = [];
    this.journal.record({ t: "compacted", history: [], summary: "" });
    const hooks = await this.extensions.hooks();
    if (hooks.hasHandlers("SessionEnd")) await hooks.run("SessionEnd", { reason: "clear" });
    this.sessionStart.restart("clear");
  }

  /**
   * Truncates the conversation at `target` (before a user message: to edit and send it again) and,
   * unless told not to, puts back the files the agent changed since that nobody changed after.
   */
  async rewind(target: RewindTarget, options: { restoreFiles?: boolean } = {}): Promise<RewindDone> {
    await this.turns.stop();
    const files = async () => {
      const workspace = await this.ensureWorkspace();
      return { backend: workspace.backend, scope: createRestoreScope(workspace) };
    };
    const outcome = await this.journal.rewind(target, options.restoreFiles === false ? undefined : files);
    if ("problem" in outcome) throw new RewindError(outcome.problem, outcome.message);
    this.history = outcome.restored.history;
    this.plan = outcome.restored.plan;
    return outcome;
  }

  /** The records written so far (after flushing what is buffered). */
  async records(): Promise<SessionRecord[]> {
    return this.journal.records();
  }

  /** Cancels, waits for the turn to wind down, saves, and frees backends and processes. */
  async close(): Promise<void> {
    if (!(await this.turns.close())) return;
    await this.journal.flush().catch(() => undefined);
    await this.extensions.close();
    await this.background.close();
    await this.workspace.dispose();
  }

  private replaceHistory(messages: Message[]): void {
    this.history = recordCompaction(this.journal, messages);
  }

  private get settings(): PersistedSettings {
    const { cwd, additionalDirectories, mode, modelSpec, thoughtLevel, title, systemPrompt } = this;
    return { cwd, additionalDirectories, mode, modelSpec, thoughtLevel, title, systemPrompt };
  }

  /** What runSessionPrompt works with that the session keeps private. */
  private promptParts(): PromptTurnParts {
    return {
      services: this.services,
      door: this.door,
      journal: this.journal,
      notices: this.notices,
      sessionStart: this.sessionStart,
      subagents: this.subagents,
      steering: this.steering,
      observe: this.observe,
      workspace: () => this.ensureWorkspace(),
      model: () => this.ensureModel(),
      settings: () => this.settings,
    };
  }

  private ensureWorkspace(): Promise<Workspace> {
    return this.workspace.get();
  }

  private ensureModel(): Promise<ModelClient> {
    const model = (this.model ??= this.services.models.create(this.modelSpec, this.thoughtLevel));
    // Not cached on failure: after `authenticate` the next prompt tries again.
    model.catch(() => {
      if (this.model === model) this.model = undefined;
    });
    return model;
  }
}
