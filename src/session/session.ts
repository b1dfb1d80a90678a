import { isThoughtLevel, thoughtSupport, type ThoughtLevel } from "../model/thought-level.js";
import { createSessionBackground, type SessionBackground } from "./background.js";
import { randomUUID } from "node:crypto";
import type { Approver } from "../agent/approver.js";
import type { AgentEvent, TurnResult } from "../agent/events.js";
import { assembleTurn, compactNow, createSessionStart, promptText, renderContextReport, runPromptTurn, titleFrom, type PromptBlock, type SessionStart } from "../turn/index.js";
import { createSpendTracker, type SpendTracker } from "./spend.js";
import { hookPermissionMode, isSessionMode, type SessionMode } from "../agent/modes.js";
import { ExtensionHost } from "../extensions/index.js";
import type { EditorBridge } from "../backends/editor-bridge.js";
import type { StateSnapshot } from "../backends/state-backend.js";
import { findProjectRoot } from "../config/project-root.js";
import type { Message, ModelClient } from "../model/types.js";
import type { PlanEntry, Questioner } from "../tools/types.js";
import { errorMessage } from "../util/errors.js";
import { RewindError } from "./errors.js";
import type { PersistentApprovalMemory } from "../gate/approval-memory.js";
import { createProtectedPaths } from "../gate/protected-paths.js";
import { createRecorder, saveTurnEnd, type Recorder, fileChanges, restoreFiles, type RewindReport, type SessionRecord, restoreSession } from "../transcript/index.js";
import type { SessionEventSink, SessionOptions, SessionServices } from "./services.js";
import { join } from "node:path";
import { describeSshHealth } from "../backends/ssh-backend.js";
import { hostKeyAnswer, hostKeyQuestion, remoteMentions } from "./remote-workspace.js";
import { createTurnQueue } from "./turn-queue.js";
import { createWorkspace, type Workspace } from "./workspace.js";

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
  /** What the session's model requests have cost (usage_update `cost`, /cost, the spend limit). */
  readonly spend: SpendTracker;
  private lastUsed: number | undefined;
  private readonly editor: EditorBridge | undefined;
  private readonly stateSnapshots: Record<string, StateSnapshot> | undefined;
  private workspace: Promise<Workspace> | undefined;
  /** Whether an editor can answer trust questions (headless cannot). */
  private readonly trustPrompter: boolean;
  private model: Promise<ModelClient> | undefined;
  private readonly turns = createTurnQueue({ onSettled: () => (this.updatedAt = this.services.now()) });
  private persisted: boolean;
  private recorder: Recorder | undefined;
  private readonly extensions: ExtensionHost;
  private readonly sessionStart: SessionStart;
  /** Problems found in the background (sandbox, config, loaders), shown at the start of the next turn. */
  private readonly pendingNotices: Array<{ severity: "info" | "warning" | "error"; title: string; description?: string }> = [];

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
    this.stateSnapshots = restored?.stateSnapshots;
    this.services = options.services;
    this.approver = options.approver;
    this.questioner = options.questioner;
    this.background = createSessionBackground({ sink: (event) => options.updates?.(event) });
    this.editor = options.editor;
    this.updatedAt = options.services.now();
    this.approvals = options.services.approvalMemory(this.projectRoot);
    this.persisted = options.persisted ?? false;
    this.trustPrompter = options.trustPrompter !== undefined;
    if (this.persisted) this.recorder = createRecorder(options.services.sessions, this.id, options.services.logger);
    this.sessionStart = createSessionStart(this.persisted ? "resume" : "startup");
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
  }

  /** The remote workspace and its health (connects if needed), for /status; undefined for a local session. */
  async remoteStatus(): Promise<string | undefined> {
    const workspace = await this.ensureWorkspace().catch(() => undefined);
    if (!workspace?.remote) return undefined;
    return `${describeSshHealth(workspace.remote.url, await workspace.remote.backend.health())} (from ${workspace.remote.source})`;
  }

  get additionalDirectories(): string[] {
    return this.roots.slice(1);
  }

  get isRunning(): boolean {
    return this.turns.running;
  }

  /** Whether the session is on disk (after its first prompt), so it can be closed and opened again. */
  get isStored(): boolean {
    return this.persisted;
  }

  /** Starts the slow parts (config, backends, model client) in the background; prompts await them. */
  warmUp(): void {
    void this.ensureWorkspace().catch((error) => this.services.logger.warn(`session ${this.id}: workspace setup failed`, error));
    void this.ensureModel().catch(() => undefined);
    void this.extensions.start().catch((error) => this.services.logger.warn(`session ${this.id}: loading extensions failed`, error));
  }

  /** /reload: re-reads skills, memory, subagents, plugins, hooks, MCP config and config.toml. */
  async reload(): Promise<string> {
    await this.turns.stop();
    await this.approvals.reload();
    const summary = await this.extensions.reload();
    // File rules, sandbox, routes and the remote come from config.toml too; a remote connection is closed.
    const previous = this.workspace;
    this.workspace = undefined;
    void previous?.then((w) => w.dispose()).catch(() => undefined);
    return summary;
  }

  /** Loaded skills (name and description), for /skills and the /skill: commands. */
  skills(): Promise<Array<{ name: string; description: string; source: string }>> {
    return this.extensions.skillList();
  }

  /** The prompt text of `/skill:<name> [args]`, or why it cannot be used. */
  skillInvocation(name: string, args: string): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
    return this.extensions.skillInvocation(name, args);
  }

  /** Markdown for /mcp: servers, status, tools and reasons. */
  describeMcp(): Promise<string> {
    return this.extensions.describeMcp();
  }

  /** Markdown for /hooks: loaded hooks by event, with their source and last diagnostics. */
  describeHooks(): Promise<string> {
    return this.extensions.describeHooks();
  }

  /** Runs a prompt turn (after any turn already running). `messageId` names the user message. */
  async prompt(blocks: readonly PromptBlock[], sink: SessionEventSink, messageId: string = randomUUID()): Promise<TurnResult> {
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
      const [workspace, model, { config }] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config()]);
      await this.ensurePersisted();
      const hooks = await this.extensions.hooks();
      const emit = (event: AgentEvent) => this.observe(event, sink);
      const compacted = await compactNow({ sessionId: this.id, workspace, model, config, hooks, emit, history: this.history, instructions, signal });
      if (compacted.messages) {
        this.replaceHistory(compacted.messages);
        await this.recorder?.flush();
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
    this.recorder?.record({ t: "mode", mode });
  }

  async setModel(spec: string): Promise<void> {
    // A level the new model does not have falls back to that model's default.
    const level = this.thoughtLevel && thoughtSupport(spec)?.levels.includes(this.thoughtLevel) ? this.thoughtLevel : undefined;
    const model = this.services.models.create(spec, level);
    await model; // throws for an unusable spec, leaving the session unchanged
    this.modelSpec = spec;
    this.model = model;
    this.thoughtLevel = level;
    this.recorder?.record({ t: "model", model: spec });
  }

  /** The `thought_level` option; throws for a level the current model does not have. */
  async setThoughtLevel(level: ThoughtLevel): Promise<void> {
    if (!thoughtSupport(this.modelSpec)?.levels.includes(level)) throw new Error(`${this.modelSpec} has no thought level "${level}"`);
    const model = this.services.models.create(this.modelSpec, level);
    await model;
    this.thoughtLevel = level;
    this.model = model;
    this.recorder?.record({ t: "thought_level", level });
  }

  /** Markdown for /cost. */
  async costReport(): Promise<string> {
    const { config } = await this.services.config();
    return this.spend.report(config.cost.max_session_usd, this.modelSpec);
  }

  /** Markdown for /context: what fills the context window, by part. */
  async contextReport(): Promise<string> {
    const [workspace, model, { config }, extensions] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config(), this.extensions.start()]);
    const session = { id: this.id, cwd: workspace.cwd, roots: workspace.roots, mode: this.mode };
    const turn = assembleTurn({ session, workspace, model, config, now: this.services.now(), env: this.services.env, extensions, interpreterSandboxes: this.extensions.sandboxes });
    return renderContextReport({ turn, history: this.history, contextWindow: model.contextWindow, ...(this.lastUsed !== undefined ? { lastReported: this.lastUsed } : {}) });
  }

  rememberedApprovals() {
    return this.approvals.entries();
  }

  forgetApproval(key: string): Promise<boolean> {
    return this.approvals.forget(key);
  }

  /** Forgets the conversation (the editor keeps showing it); settings and remembered choices stay. */
  async clear(): Promise<void> {
    await this.turns.stop();
    this.history = [];
    this.plan = [];
    this.recorder?.record({ t: "compacted", history: [], summary: "" });
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
    await this.recorder?.flush();
    const records = this.persisted ? ((await this.services.sessions.read(this.id)).records as unknown as SessionRecord[]) : [];
    const cut = records.findIndex((r) => r.t === "user" && r.id === messageId);
    if (cut < 0) throw new RewindError(`no user message ${messageId} in session ${this.id}`);
    const workspace = await this.ensureWorkspace();
    const report = await restoreFiles(fileChanges(records.slice(cut)), workspace.backend, {
      roots: workspace.roots,
      virtualPrefixes: workspace.virtualPrefixes,
      localPaths: !workspace.remote,
    });
    const kept = records.slice(0, cut);
    await this.services.sessions.rewrite(this.id, kept as unknown as Record<string, unknown>[]);
    const restored = restoreSession(kept);
    this.history = restored.history;
    this.plan = restored.plan;
    return report;
  }

  /** The records written so far (after flushing what is buffered). */
  async records(): Promise<SessionRecord[]> {
    if (!this.persisted) return [];
    await this.recorder?.flush();
    return (await this.services.sessions.read(this.id)).records as unknown as SessionRecord[];
  }

  /** Cancels, waits for the turn to wind down, saves, and frees backends and processes. */
  async close(): Promise<void> {
    if (!(await this.turns.close())) return;
    await this.recorder?.flush().catch(() => undefined);
    await this.extensions.close();
    await this.background.close();
    const workspace = await this.workspace?.catch(() => undefined);
    await workspace?.dispose();
  }

  /** Every event of a turn goes to the transcript and to the editor. */
  private observe(event: AgentEvent, sink: SessionEventSink): void {
    if (event.type === "plan") this.plan = event.entries;
    if (event.type === "usage") {
      event = this.spend.add(event);
      if (event.type === "usage") this.lastUsed = event.used;
    }
    this.recorder?.event(event);
    sink(event);
  }

  private replaceHistory(messages: Message[]): void {
    this.history = [...messages];
    const first = messages[0];
    const summary = first && first.role === "user" ? first.content.map((c) => (c.type === "text" ? c.text : "")).join("") : "";
    this.recorder?.record({ t: "compacted", history: this.history, summary });
  }

  private async executeTurn(blocks: readonly PromptBlock[], sink: SessionEventSink, signal: AbortSignal, messageId: string): Promise<TurnResult> {
    const [workspace, model, { config }] = await Promise.all([this.ensureWorkspace(), this.ensureModel(), this.services.config()]);
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
            this.recorder?.user(messageId, [...shown], message);
            this.history.push(message);
          },
          message: (message, mid) => {
            this.recorder?.message(message, mid);
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
    if (!this.recorder) return;
    const states = [...((await this.workspace?.catch(() => undefined))?.stateBackends ?? [])];
    const snapshots = states.length > 0 ? Object.fromEntries(states.map(([prefix, state]) => [prefix, state.snapshot()])) : undefined;
    const meta = { ...(this.title ? { title: this.title } : {}), extra: { mode: this.mode, model: this.modelSpec } };
    const { sessions: store, logger } = this.services;
    await saveTurnEnd({ recorder: this.recorder, store, sessionId: this.id, result, meta, snapshots, logger });
  }

  /** New sessions reach the disk at their first prompt, so empty sessions never clutter the list. */
  private async ensurePersisted(): Promise<void> {
    if (this.persisted) return;
    this.persisted = true;
    await this.services.sessions.create({ id: this.id, cwd: this.cwd, additionalDirectories: this.additionalDirectories, extra: { mode: this.mode, model: this.modelSpec } });
    this.recorder = createRecorder(this.services.sessions, this.id, this.services.logger);
    this.recorder.record({ t: "mode", mode: this.mode });
    this.recorder.record({ t: "model", model: this.modelSpec });
    if (this.thoughtLevel) this.recorder.record({ t: "thought_level", level: this.thoughtLevel });
  }

  private ensureWorkspace(): Promise<Workspace> {
    this.workspace ??= this.services.config().then(async ({ config }) => {
      const [workspace] = await Promise.all([
        createWorkspace({
          cwd: this.cwd,
          roots: this.roots,
          config,
          flags: this.services.flags,
          paths: this.services.paths,
          editor: this.editor,
          logger: this.services.logger,
          stateSnapshots: this.stateSnapshots,
          ...(this.trustPrompter ? { askHostKey: (key, url) => this.extensions.ask(hostKeyQuestion(key, url, join(this.services.paths.home, ".ssh", "known_hosts"))).then(hostKeyAnswer) } : {}),
        }),
        this.approvals.load(),
      ]);
      for (const d of workspace.diagnostics) this.pendingNotices.push({ severity: d.severity === "info" ? "info" : d.severity, title: d.message, description: d.source });
      return workspace;
    });
    return this.workspace;
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

