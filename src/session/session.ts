import { isThoughtLevel, thoughtSupport, type ThoughtLevel } from "../model/thought-level.js";
import { createSessionBackground, type SessionBackground } from "./background.js";
import { randomUUID } from "node:crypto";
import type { Approver } from "../agent/approver.js";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import {
  assembleTurn,
  compactNow,
  createSessionStart,
  promptText,
  renderContextReport,
  runPromptTurn,
  titleFrom,
  type PromptBlock,
  type SessionStart,
} from "../turn/index.js";
import { createSpendTracker, type SpendTracker } from "./spend.js";
import { hookPermissionMode, isSessionMode, type SessionMode } from "../agent/modes.js";
import { ExtensionHost } from "../extensions/index.js";
import { findProjectRoot } from "../config/project-root.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PlanEntry, Questioner } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { RewindError } from "./errors.js";
import type { PersistentApprovalMemory } from "../gate/approval-memory.js";
import { createProtectedPaths } from "../gate/protected-paths.js";
import { createJournal, type Journal, type RewindReport, type SessionRecord } from "../transcript/index.js";
import type { SessionEventSink, SessionOptions, SessionServices } from "./services.js";
import { join } from "node:path";
import { hostKeyAnswer, hostKeyQuestion, remoteMentions } from "./remote-workspace.js";
import { createTurnQueue } from "./turn-queue.js";
import type { Workspace } from "./workspace.js";
import { createWorkspaceSlot, type WorkspaceSlot } from "./workspace-slot.js";

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
  updatedAt: Date;
  plan: PlanEntry[] = [];
  history: Message[] = [];
  readonly approvals: PersistentApprovalMemory;

  private readonly services: SessionServices;
  private readonly approver: Approver;
  private readonly questioner: Questioner | undefined;
  /** Processes started with execute {background: true}; they outlive turns, not the session. */
  readonly background: SessionBackground;
  private readonly workspace: WorkspaceSlot;
  /** What the session's model requests have cost (usage_update `cost`, /cost, the spend limit). */
  readonly spend: SpendTracker;
  private lastUsed: number | undefined;
  /** Whether an editor can answer trust questions (headless cannot). */
  private model: Promise<ModelClient> | undefined;
  private readonly turns = createTurnQueue({ onSettled: () => (this.updatedAt = this.services.now()) });
  private readonly journal: Journal;
  /** Skills, memory, subagents, plugins, hooks and MCP of this session (commands read them). */
  readonly extensions: ExtensionHost;
  private readonly sessionStart: SessionStart;
  /** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
  private readonly pendingNotices: Array<{
    severity: "info" | "warning" | "error";
    title: string;
    description?: string;
  }> = [];

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
    this.services = options.services;
    this.approver = options.approver;
    this.questioner = options.questioner;
    this.background = createSessionBackground({ sink: (event) => options.updates?.(event) });
    this.updatedAt = options.services.now();
    this.approvals = options.services.approvalMemory(this.projectRoot);
    this.journal = createJournal({
      store: options.services.sessions,
      sessionId: this.id,
      logger: options.services.logger,
      persisted: options.persisted ?? false,
    });
    this.sessionStart = createSessionStart(this.journal.persisted ? "resume" : "startup");
    this.extensions = new ExtensionHost({
      sessionId: this.id,
      cwd: this.cwd,
      projectRoot: this.projectRoot,
      services: options.services,
      editorMcpServers: options.editorMcpServers ?? [],
      prompter: options.trustPrompter,
      transcriptPath: join(options.services.paths.sessionsDir, `${this.id}.jsonl`),
      permissionMode: () => hookPermissionMode(this.mode),
      notify: options.notify ?? (() => false),
      ...(options.onReloadPending ? { onReloadPending: options.onReloadPending } : {}),
      ...(options.questioner ? { questioner: options.questioner } : {}),
    });
    const knownHosts = join(options.services.paths.home, ".ssh", "known_hosts");
    this.workspace = createWorkspaceSlot({
      cwd: this.cwd,
      roots: this.roots,
      editor: options.editor,
      stateSnapshots: restored?.stateSnapshots,
      services: options.services,
      // Only an editor can answer an unknown SSH host key.
      ...(options.trustPrompter
        ? { askHostKey: (key, url) => this.extensions.ask(hostKeyQuestion(key, url, knownHosts)).then(hostKeyAnswer) }
        : {}),
      alongside: () => this.approvals.load(),
      onDiagnostics: (diagnostics) => {
        for (const d of diagnostics)
          this.pendingNotices.push({
            severity: d.severity === "info" ? "info" : d.severity,
            title: d.message,
            description: d.source,
          });
      },
    });
  }

  /** The remote workspace and its health (connects if needed), for /status; undefined for a local session. */
  remoteStatus(): Promise<string | undefined> {
    return this.workspace.remoteStatus();
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
      try {
        result = await this.executeTurn(blocks, sink, signal, messageId);
      } catch (error) {
        result = signal.aborted ? { stopReason: "cancelled" } : { stopReason: "end_turn", error: errorMessage(error) };
      }
      await this.finishTurn(result);
      return result;
    });
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
      await this.ensurePersisted();
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

  /** Cancels the running turn and every prompt queued behind it. */
  cancel(): void {
    this.turns.cancel();
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
    const [workspace, model, { config }, extensions] = await Promise.all([
      this.ensureWorkspace(),
      this.ensureModel(),
      this.services.config(),
      this.extensions.start(),
    ]);
    const session = { id: this.id, cwd: workspace.cwd, roots: workspace.roots, mode: this.mode };
    const turn = assembleTurn({
      session,
      workspace,
      model,
      config,
      now: this.services.now(),
      env: this.services.env,
      extensions,
      interpreterSandboxes: this.extensions.sandboxes,
    });
    return renderContextReport({
      turn,
      history: this.history,
      contextWindow: model.contextWindow,
      ...(this.lastUsed !== undefined ? { lastReported: this.lastUsed } : {}),
    });
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
   * Truncates the conversation before user message `messageId` (so it can be edited and sent again)
   * and puts back files the agent changed since, unless someone else changed them after.
   */
  async rewind(messageId: string): Promise<RewindReport> {
    await this.turns.stop();
    const outcome = await this.journal.rewind(messageId, async () => {
      const workspace = await this.ensureWorkspace();
      const scope = {
        roots: workspace.roots,
        virtualPrefixes: workspace.virtualPrefixes,
        localPaths: !workspace.remote,
      };
      return { backend: workspace.backend, scope };
    });
    if (!outcome) throw new RewindError(`no user message ${messageId} in session ${this.id}`);
    this.history = outcome.restored.history;
    this.plan = outcome.restored.plan;
    return outcome.report;
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

  /** Every event of a turn goes to the transcript and to the editor. */
  private observe(event: AgentEvent, sink: SessionEventSink): void {
    if (event.type === "plan") this.plan = event.entries;
    if (event.type === "usage") {
      event = this.spend.add(event);
      if (event.type === "usage") this.lastUsed = event.used;
    }
    this.journal.event(event);
    sink(event);
  }

  private replaceHistory(messages: Message[]): void {
    this.history = [...messages];
    const first = messages[0];
    const summary =
      first && first.role === "user" ? first.content.map((c) => (c.type === "text" ? c.text : "")).join("") : "";
    this.journal.record({ t: "compacted", history: this.history, summary });
  }

  private async executeTurn(
    blocks: readonly PromptBlock[],
    sink: SessionEventSink,
    signal: AbortSignal,
    messageId: string,
  ): Promise<TurnResult> {
    const [workspace, model, { config }] = await Promise.all([
      this.ensureWorkspace(),
      this.ensureModel(),
      this.services.config(),
    ]);
    if (signal.aborted) return { stopReason: "cancelled" };
    await this.ensurePersisted();
    for (const notice of this.pendingNotices.splice(0)) sink({ type: "notice", ...notice });
    try {
      const extensions = await this.extensions.forTurn(signal, sink);
      if (signal.aborted) return { stopReason: "cancelled" };
      const isFirstExchange = !this.title;
      // As in Claude Code, SessionStart comes before the first UserPromptSubmit.
      const startContext = await this.sessionStart.context(extensions.hooks, model.id, signal);
      const { result, submitted } = await runPromptTurn({
        // A remote workspace's tools and prompt see remote paths; the session keeps its local cwd for its records.
        session: { id: this.id, cwd: workspace.cwd, roots: workspace.roots, mode: this.mode },
        blocks: workspace.remote ? remoteMentions(blocks, this.cwd, workspace.cwd) : blocks,
        history: this.history,
        startContext,
        workspace,
        model,
        createModel: (spec) => this.services.models.create(spec),
        config,
        extensions,
        interpreterSandboxes: this.extensions.sandboxes,
        now: this.services.now(),
        env: this.services.env,
        gate: {
          approver: this.approver,
          memory: this.approvals,
          gatePolicy: {
            rules: workspace.rules,
            sandboxed: workspace.sandboxed,
            protectedPaths: createProtectedPaths(config.protected.paths, config.protected.extra_paths),
            // A remote workspace's links are followed on the remote.
            ...(workspace.remote ? { fs: workspace.remote.backend.realPathFs } : {}),
          },
        },
        questioner: this.questioner,
        background: this.background.prepare(config.shell, workspace.shell),
        spendLimit: () => this.spend.overLimit(config.cost.max_session_usd),
        record: {
          prompt: (message, shown) => {
            this.journal.user(messageId, [...shown], message);
            this.history.push(message);
          },
          message: (message, mid) => {
            this.journal.message(message, mid);
            this.history.push(message);
          },
          historyReplaced: (messages) => this.replaceHistory(messages),
        },
        emit: (event) => this.observe(event, sink),
        show: sink,
        signal,
      });
      if (!submitted) return result;
      this.sessionStart.delivered();
      if (isFirstExchange && !signal.aborted) {
        this.title = titleFrom(promptText(blocks));
        sink({ type: "session_info", title: this.title, updatedAt: this.services.now().toISOString() });
      }
      return result;
    } finally {
      this.extensions.endTurn();
    }
  }

  /** Saves the end of a turn, with the files of the session-scoped routes. */
  private async finishTurn(result: TurnResult): Promise<void> {
    const states = [...((await this.workspace.built())?.stateBackends ?? [])];
    const snapshots =
      states.length > 0 ? Object.fromEntries(states.map(([prefix, state]) => [prefix, state.snapshot()])) : undefined;
    await this.journal.endTurn(
      result,
      { ...(this.title ? { title: this.title } : {}), extra: { mode: this.mode, model: this.modelSpec } },
      snapshots,
    );
  }

  /** New sessions reach the disk at their first prompt, so empty sessions never clutter the list. */
  private async ensurePersisted(): Promise<void> {
    const first: SessionRecord[] = [
      { t: "mode", mode: this.mode },
      { t: "model", model: this.modelSpec },
    ];
    if (this.thoughtLevel) first.push({ t: "thought_level", level: this.thoughtLevel });
    const meta = {
      cwd: this.cwd,
      additionalDirectories: this.additionalDirectories,
      extra: { mode: this.mode, model: this.modelSpec },
    };
    await this.journal.create(meta, first);
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
